// The nccl-tests text parser's line grammar, piece by piece: launcher prefixes, rank lines, table
// headers and footers, and lines long enough that a search that backtracks never ends.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "reports/analyze/nccl_text_parser.h"

namespace collbench::report {
namespace {

const std::string kRow =
    "  1024  256  float  sum  -1  10.00  0.10  0.19  0  10.00  0.10  0.19  0";

}  // namespace

TEST(ParserLines, RankLinesBehindTagsWithOrWithoutGroup) {
  const auto out = parse_nccl_tests_output(
      "[1,1]<stderr>:#  Rank  1 Group  0 Pid  12 on host-b device  1 [0x10] NVIDIA H100\n"
      "#  Rank  3 Pid  9 on host-d device  3 [0x20] NVIDIA H100\n"
      "xRank  2 Pid  9 on host-c device  2\n"           // "Rank" inside a word: not a rank line
      "#  Rank  4 Pid  9 on host-e\n"                    // no device: not a rank line
      "#  Rank  99999999999 Pid 1 on host-f device 0\n"  // past int: skipped
      "# nThread 1 nGpus 8 minBytes 8 maxBytes 128\n");
  ASSERT_EQ(out.ranks.size(), 2u);
  EXPECT_EQ(out.ranks[0].rank, 1);
  EXPECT_EQ(out.ranks[0].host, "host-b");
  EXPECT_EQ(out.ranks[1].rank, 3);
  EXPECT_EQ(out.ranks[1].host, "host-d");
  EXPECT_EQ(out.gpus_per_process, 8);
}

TEST(ParserLines, CollectiveNamesFromHeaderAndFooter) {
  const auto started = parse_nccl_tests("Collective test starting: all_gather_perf\n" + kRow + "\n");
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0].collective, "all_gather");
  const auto header = parse_nccl_tests("0: # Collective test: reduce_scatter\n" + kRow + "\n");
  ASSERT_EQ(header.size(), 1u);
  EXPECT_EQ(header[0].collective, "reduce_scatter");
  // A footer followed by more words is no footer.
  const auto trailing = parse_nccl_tests(kRow + "\nCollective test concluded: all_reduce_perf now\n");
  ASSERT_EQ(trailing.size(), 1u);
  EXPECT_EQ(trailing[0].collective, "");
  const auto bare = parse_nccl_tests(kRow + "\nCollective test concluded: _perf  \n");
  EXPECT_EQ(bare[0].collective, "_perf");
}

TEST(ParserLines, FootersAndLabels) {
  const auto t = parse_nccl_tests("3: " + kRow + "\n[0,0]<stdout>:# Out of bounds values : 2 FAILED\n" +
                                  "# Avg bus bandwidth    : 1.5e-01 \n12:\n");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].rows.size(), 1u);
  EXPECT_EQ(t[0].out_of_bounds, 2);
  ASSERT_TRUE(t[0].avg_busbw_gbs.has_value());
  EXPECT_DOUBLE_EQ(*t[0].avg_busbw_gbs, 0.15);
}

// A quarter of a megabyte on one line, of blanks or of row starts that never complete: read in one pass. A
// search that backtracks, or copies the rest of the line at every row start, takes hours here.
TEST(ParserLines, LongLinesReadInLinearTime) {
  std::string starts;
  for (int i = 0; i < 30000; ++i) starts += "1 1 float ";
  const std::string text = std::string(1 << 18, ' ') + "Rank 1\n" + starts + "\n" + std::string(1 << 18, '9') + "\n";
  const auto begin = std::chrono::steady_clock::now();
  const auto out = parse_nccl_tests_output(text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_TRUE(out.tables.empty());
  EXPECT_EQ(out.malformed.size(), 1u);  // the line of row starts
  EXPECT_LT(seconds, 10.0);
}

}  // namespace collbench::report
