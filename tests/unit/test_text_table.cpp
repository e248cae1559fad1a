// The text output, line by line: nccl-tests' columns and footers, and read back by the parser.
#include <gtest/gtest.h>

#include <sstream>

#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/table_stream.h"
#include "reports/core/text_table.h"

namespace collbench::report {
namespace {

CaseResult make_case(Placement placement, double mean_us, std::optional<std::int64_t> wrong) {
  CaseResult c;
  c.op = "all_reduce";
  c.dtype = "float";
  c.redop = "sum";
  c.placement = placement;
  c.root = -1;
  c.bytes = 8589934592ull;
  c.count = 2147483648ull;
  c.time_us.mean = mean_us;
  c.algbw_gbs = 249.36;
  c.busbw_gbs = 467.54;
  c.wrong = wrong;
  return c;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST(TextTable, TimeColumnPrecisionLikeNcclTests) {
  EXPECT_EQ(format_time_us(45.72), "  45.72");
  EXPECT_EQ(format_time_us(110.14), "  110.1");
  EXPECT_EQ(format_time_us(9999.94), " 9999.9");
  EXPECT_EQ(format_time_us(34448.4), "  34448");
}

TEST(TextTable, RowHasNcclTestsColumns) {
  const CaseResult oop = make_case(Placement::OutOfPlace, 34448.4, 0);
  const CaseResult ip = make_case(Placement::InPlace, 34381.0, std::nullopt);
  EXPECT_EQ(render_row(&oop, &ip),
            "  8589934592    2147483648     float     sum      -1    34448  249.36  467.54       0    34381  249.36  "
            "467.54     N/A\n");
  EXPECT_EQ(render_row(&oop, nullptr).substr(85), "      N/A     N/A     N/A     N/A\n");
}

TEST(TextTable, HeaderAndFooterLines) {
  const auto h = lines(render_table_header("all_reduce"));
  ASSERT_EQ(h.size(), 6u);
  EXPECT_EQ(h[1], "# Collective test: all_reduce");
  EXPECT_EQ(h[4],
            "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   "
            "busbw  #wrong");
  std::vector<CaseResult> cases{make_case(Placement::OutOfPlace, 1, 0), make_case(Placement::InPlace, 1, 2)};
  cases[1].busbw_gbs = 100;
  const auto f = lines(render_table_footer(cases));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "# Out of bounds values : 2 FAILED");
  EXPECT_EQ(f[1], "# Avg bus bandwidth    : 283.77 ");
  cases[1].wrong = 0;
  EXPECT_EQ(lines(render_table_footer(cases))[0], "# Out of bounds values : 0 OK");
}

TEST(TextTable, FormatRanksCompressesRuns) {
  EXPECT_EQ(format_ranks(std::vector<int>{0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_ranks(std::vector<int>{}), "");
}

TEST(TableStream, EmitsRowsWhenCompleteAndParsesBack) {
  TableStream stream(2);
  std::string text;
  text += stream.add(make_case(Placement::OutOfPlace, 100, 0));
  EXPECT_EQ(text.find("  8589934592"), std::string::npos) << "row printed before its in-place half";
  text += stream.add(make_case(Placement::InPlace, 90, 0));
  CaseResult other = make_case(Placement::OutOfPlace, 50, 0);
  other.op = "all_to_all";
  text += stream.add(other);
  other.placement = Placement::InPlace;
  text += stream.add(other);
  text += stream.finish();

  const auto tables = parse_nccl_tests(text);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].collective, "all_reduce");
  EXPECT_EQ(tables[1].collective, "all_to_all");
  ASSERT_EQ(tables[0].rows.size(), 1u);
  EXPECT_EQ(tables[0].rows[0].bytes, 8589934592ull);
  EXPECT_DOUBLE_EQ(tables[0].rows[0].in_place->time_us, 90.0);
  EXPECT_EQ(tables[0].out_of_bounds, 0);
  EXPECT_NEAR(*tables[1].avg_busbw_gbs, 467.54, 1e-9);
}

}  // namespace collbench::report
