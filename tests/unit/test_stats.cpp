#include <gtest/gtest.h>

#include "reports/core/case_summary.h"
#include "reports/run/result_verdicts.h"
#include "reports/core/stats.h"

namespace collbench::report {

TEST(Stats, SummaryOfKnownSamples) {
  const std::vector<double> v{5, 1, 4, 2, 3};
  const TimeStats s = summarize(v);
  EXPECT_EQ(s.samples, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_DOUBLE_EQ(s.p99, 5);
  EXPECT_NEAR(s.stdev, 1.5811388, 1e-6);  // sample standard deviation
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{1, 2, 3, 4}).median, 2.5);
  EXPECT_EQ(summarize(std::vector<double>{}).samples, 0u);
}

TEST(Stats, P99IsNearestRank) {
  std::vector<double> v;
  for (int i = 1; i <= 200; ++i) v.push_back(i);
  EXPECT_DOUBLE_EQ(summarize(v).p99, 198);
  EXPECT_DOUBLE_EQ(median(v), 100.5);
}

TEST(Stats, RankReductionPolicies) {
  const std::vector<std::vector<double>> s{{1, 10}, {3, 20}, {2, 60}};
  EXPECT_EQ(reduce_across_ranks(s, RankReduce::Mean), (std::vector<double>{2, 30}));
  EXPECT_EQ(reduce_across_ranks(s, RankReduce::Max), (std::vector<double>{3, 60}));
  EXPECT_EQ(reduce_across_ranks(s, RankReduce::Min), (std::vector<double>{1, 10}));
  EXPECT_EQ(reduce_across_ranks(s, RankReduce::Rank0), (std::vector<double>{1, 10}));
  RankReduce how;
  EXPECT_TRUE(parse_rank_reduce("rank0", &how));
  EXPECT_FALSE(parse_rank_reduce("median", &how));
}

TEST(CaseSummary, BandwidthFromMeanTimeAndMediansPerRankAndNode) {
  // 2 ranks, 3 iterations each, in seconds.
  const std::vector<std::vector<double>> samples{{1e-3, 1e-3, 4e-3}, {1e-3, 3e-3, 4e-3}};
  RawCase raw;
  raw.op = "all_reduce";
  raw.bytes = 1000000;
  raw.busbw_factor = 1.0;  // 2(n-1)/n for n = 2
  raw.samples_s = &samples;
  raw.wrong = 0;
  const CaseResult c = summarize_case(raw, RankReduce::Mean, {{"a", {0}}, {"b", {1}}});
  // Per-iteration means: 1, 2, 4 ms; mean 2.333 ms.
  EXPECT_NEAR(c.time_us.mean, 2333.333, 1e-3);
  EXPECT_NEAR(c.time_us.median, 2000, 1e-9);
  EXPECT_NEAR(c.algbw_gbs, 1e6 / 1e9 / 2.333333e-3, 1e-4);
  EXPECT_DOUBLE_EQ(c.busbw_gbs, c.algbw_gbs);
  ASSERT_EQ(c.rank_median_us.size(), 2u);
  EXPECT_NEAR(c.rank_median_us[0], 1000, 1e-9);
  EXPECT_NEAR(c.rank_median_us[1], 3000, 1e-9);
  ASSERT_EQ(c.node_median_us.size(), 2u);
  EXPECT_EQ(c.node_median_us[1].node, "b");
  EXPECT_NEAR(c.node_median_us[1].median_us, 3000, 1e-9);
  EXPECT_EQ(c.group.ranks, (std::vector<int>{0, 1}));
}

TEST(ResultFindings, WrongExactAndUnchecked) {
  CaseResult ok, bad, unchecked;
  ok.wrong = 0;
  bad.wrong = 4;
  bad.op = "all_to_all";
  const auto codes = [](const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const auto& f : fs) out.push_back(f.code);
    return out;
  };
  EXPECT_EQ(codes(result_findings({ok, ok})), std::vector<std::string>{"RESULTS_EXACT"});
  const auto with_bad = result_findings({ok, bad});
  EXPECT_EQ(codes(with_bad), std::vector<std::string>{"WRONG_RESULTS"});
  EXPECT_EQ(with_bad[0].tag, Tag::Fail);
  EXPECT_NE(with_bad[0].message.find("4 wrong elements in 1 of 2 cases; first: all_to_all"), std::string::npos);
  EXPECT_EQ(codes(result_findings({ok, unchecked})), (std::vector<std::string>{"RESULTS_EXACT", "RESULTS_UNCHECKED"}));
  EXPECT_EQ(codes(result_findings({unchecked})), std::vector<std::string>{"RESULTS_UNCHECKED"});
}

TEST(ResultFindings, WrongResultsNameTheRanksAndTheirHosts) {
  CaseResult ok, bad1, bad2, unchecked;
  ok.wrong = 0;
  bad1.wrong = 4;
  bad1.wrong_ranks = {3};
  bad2.wrong = 1;
  bad2.wrong_ranks = {3};
  const std::vector<NodeInfo> nodes = {{"node-a", {0, 1}}, {"node-b", {2, 3}}};
  const auto one = result_findings({ok, bad1, bad2}, nodes);
  ASSERT_EQ(one[0].code, "WRONG_RESULTS");
  EXPECT_EQ(one[0].subject.kind, SubjectKind::Rank);
  EXPECT_EQ(one[0].subject.ranks, std::vector<int>{3});
  EXPECT_EQ(one[0].subject.hosts, std::vector<std::string>{"node-b"});
  EXPECT_NE(one[0].message.find("5 wrong elements on rank 3 (node-b) in 2 of 3 cases"), std::string::npos)
      << one[0].message;

  bad2.wrong_ranks = {0, 2};
  const auto two = result_findings({bad1, bad2}, nodes);
  EXPECT_EQ(two[0].subject.kind, SubjectKind::Rank);
  EXPECT_EQ(two[0].subject.ranks, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(two[0].subject.hosts, (std::vector<std::string>{"node-a", "node-b"}));

  // Without per-rank counts (nccl-tests output) nobody can be named.
  bad1.wrong_ranks.clear();
  EXPECT_EQ(result_findings({bad1}, nodes)[0].subject, Subject::world());
  EXPECT_EQ(result_findings({ok})[0].subject, Subject::world());
  EXPECT_EQ(result_findings({unchecked})[0].subject, Subject::world());
}

}  // namespace collbench::report
