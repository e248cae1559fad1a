// The parser against real published nccl-tests outputs (tests/fixtures/nccl-tests, see its README).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "reports/analyze/nccl_text_parser.h"

namespace collbench::report {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(COLLBENCH_FIXTURES) + "/nccl-tests/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const ParsedRow& last_row(const std::vector<ParsedTable>& t) { return t.back().rows.back(); }

}  // namespace

TEST(Parser, EveryFixtureYieldsATable) {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(COLLBENCH_FIXTURES) + "/nccl-tests")) {
    const auto tables = parse_nccl_tests(fixture(entry.path().filename().string()));
    ASSERT_FALSE(tables.empty()) << entry.path();
    EXPECT_FALSE(tables[0].rows.empty()) << entry.path();
  }
}

TEST(Parser, NewerLayoutWithoutHashes) {
  const auto t = parse_nccl_tests(fixture("all_reduce_2x_nebius-h100_ib-dstack.txt"));
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].rows.size(), 31u);  // 8 B .. 8 GiB
  EXPECT_EQ(t[0].collective, "all_reduce");
  const auto& r = last_row(t);
  EXPECT_EQ(r.bytes, 8589934592ull);
  EXPECT_EQ(r.redop, "sum");
  EXPECT_EQ(r.root, -1);
  EXPECT_DOUBLE_EQ(r.out_of_place->busbw_gbs, 467.54);
  EXPECT_DOUBLE_EQ(r.in_place->busbw_gbs, 468.46);
  EXPECT_EQ(r.out_of_place->wrong, 0);
  EXPECT_DOUBLE_EQ(*t[0].avg_busbw_gbs, 125.499);
  EXPECT_EQ(t[0].out_of_bounds, 0);
}

TEST(Parser, OldAllToAllWithBlankRedopAndNA) {
  const auto t = parse_nccl_tests(fixture("alltoall_1x_unknown-a100_old-blank-redop-NA.txt"));
  const auto& r = last_row(t);
  EXPECT_EQ(r.count, 268435456u);
  EXPECT_EQ(r.redop, "");
  EXPECT_FALSE(r.root.has_value());
  EXPECT_DOUBLE_EQ(r.out_of_place->busbw_gbs, 224.31);
  EXPECT_FALSE(r.out_of_place->wrong.has_value()) << "N/A is unchecked, not an error count";
  EXPECT_EQ(t[0].rows.size(), 34u);
}

TEST(Parser, OldErrorColumnAndRankTags) {
  const auto t = parse_nccl_tests(fixture("all_reduce_2x_p4d.24xlarge_old-error-column-fulllog.txt"));
  const auto& r = last_row(t);
  EXPECT_FALSE(r.root.has_value());
  ASSERT_TRUE(r.out_of_place->error.has_value());
  EXPECT_FALSE(r.out_of_place->wrong.has_value());
  EXPECT_NEAR(r.out_of_place->busbw_gbs, 43.81, 1e-9);
  EXPECT_NEAR(*t.back().avg_busbw_gbs, 11.2432, 1e-9);
}

TEST(Parser, SrunLabelsAndTruncatedLogs) {
  const auto s = parse_nccl_tests(fixture("scatter_2x_p4d.24xlarge_srun-label-rawlog.txt"));
  EXPECT_NEAR(last_row(s).out_of_place->busbw_gbs, 80.59, 1e-9);
  const auto one = parse_nccl_tests(fixture("all_reduce_2x_p5.48xlarge_truncated-one-row.txt"));
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(one[0].rows.size(), 1u);
  EXPECT_NEAR(one[0].rows[0].in_place->busbw_gbs, 439.28, 1e-9);
  EXPECT_FALSE(one[0].out_of_bounds.has_value());
}

TEST(Parser, TimestampColumnAndMalformedRowsWithLineNumbers) {
  const auto out = parse_nccl_tests_output(
      "        1024           256     float     sum      -1    10.00    0.10    0.19       0    10.00    0.10    0.19"
      "       0  2025-03-01 12:00:00\n"
      "# comment\n"
      "        2048           512     float     sum      -1    10.00    0.2\n");
  ASSERT_EQ(out.tables.size(), 1u);
  EXPECT_EQ(out.tables[0].rows.size(), 1u);
  ASSERT_EQ(out.malformed.size(), 1u);
  EXPECT_EQ(out.malformed[0].line, 3);
}

TEST(Parser, IgnoresLinesThatOnlyLookNumeric) {
  const auto t = parse_nccl_tests("12 34 float\n1 2 3 4 5 6 7 8 9 10 11\nnothing here\n");
  EXPECT_TRUE(t.empty());
}

}  // namespace collbench::report
