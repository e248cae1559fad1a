#include <gtest/gtest.h>

#include "reports/pairs/group_verdicts.h"
#include "reports/core/references.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

using Kind = GroupVerdict::Kind;

std::vector<GroupScore> nodes(std::vector<double> bw, std::size_t samples = 20) {
  std::vector<GroupScore> out;
  for (std::size_t i = 0; i < bw.size(); ++i) out.push_back({"node" + std::to_string(i), bw[i], samples});
  return out;
}

TEST(GroupVerdicts, OneSlowNodeOfFourIsNamedAlone) {
  const auto g = nodes({300, 305, 180, 298});
  const auto j = judge_groups(g);
  EXPECT_EQ(j.groups[2].kind, Kind::Slow);
  for (int i : {0, 1, 3}) EXPECT_EQ(j.groups[i].kind, Kind::Healthy) << i;
  const auto f = group_findings(g, j, GroupKind::Node, "all_reduce busbw at 64 MiB");
  ASSERT_EQ(codes(f), std::vector<std::string>{"SLOW_NODE_LOCAL"});
  EXPECT_EQ(f[0].tag, Tag::Fail);
  EXPECT_EQ(f[0].reference, ref::kSingleNode);
  EXPECT_NE(f[0].message.find("node2: its own all_reduce busbw at 64 MiB 180 GB/s"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("scontrol update nodename=node2 state=drain"), std::string::npos);
}

TEST(GroupVerdicts, SlowRailNamesTheLocalRank) {
  std::vector<GroupScore> g;
  for (int i = 0; i < 8; ++i) g.push_back({"local rank " + std::to_string(i), i == 5 ? 20.0 : 45.0 + i * 0.1, 20});
  const auto f = group_findings(g, judge_groups(g), GroupKind::Rail, "all_reduce busbw at 1 GiB");
  ASSERT_EQ(codes(f), std::vector<std::string>{"SLOW_RAIL"});
  EXPECT_EQ(f[0].message.rfind("local rank 5 (GPU/NIC index on every node)", 0), 0u) << f[0].message;
  EXPECT_EQ(f[0].reference, ref::kEfaConfig);
}

TEST(GroupVerdicts, SubjectsNameTheSlowNodeOrRail) {
  auto g = nodes({300, 305, 180, 298});
  for (std::size_t i = 0; i < g.size(); ++i) g[i].ranks = {int(2 * i), int(2 * i + 1)};
  auto f = group_findings(g, judge_groups(g), GroupKind::Node, "x");
  ASSERT_EQ(codes(f), std::vector<std::string>{"SLOW_NODE_LOCAL"});
  EXPECT_EQ(f[0].subject, Subject::node("node2", {4, 5}));
  // The hunt's node phase gives labels only: the label is the host.
  f = group_findings(nodes({300, 305, 180, 298}), judge_groups(g), GroupKind::Node, "x");
  EXPECT_EQ(f[0].subject, Subject::node("node2"));

  std::vector<GroupScore> rails;
  for (int i = 0; i < 4; ++i)
    rails.push_back({"local rank " + std::to_string(i), i == 1 ? 20.0 : 45.0, 20, 0, {i, i + 4}, {"a", "b"}});
  f = group_findings(rails, judge_groups(rails), GroupKind::Rail, "x");
  ASSERT_EQ(codes(f), std::vector<std::string>{"SLOW_RAIL"});
  EXPECT_EQ(f[0].subject.kind, SubjectKind::Rail);
  EXPECT_EQ(f[0].subject.ranks, (std::vector<int>{1, 5}));
  EXPECT_EQ(f[0].subject.hosts, (std::vector<std::string>{"a", "b"}));
}

TEST(GroupVerdicts, InconclusiveNamesTheDoubtfulGroupsAndEvenTheWorld) {
  const auto two = nodes({100, 60});
  const auto f = group_findings(two, judge_groups(two), GroupKind::Node, "x");
  ASSERT_EQ(codes(f), std::vector<std::string>{"GROUPS_INCONCLUSIVE"});
  EXPECT_EQ(f[0].subject, Subject::nodes({"node0", "node1"}));
  const auto even = nodes({100, 99.5, 100.4});
  EXPECT_EQ(group_findings(even, judge_groups(even), GroupKind::Node, "x")[0].subject, Subject::world());
}

TEST(GroupVerdicts, SmallSpreadFlagsNoOne) {
  const auto g = nodes({100, 99.5, 100.4, 99.9, 100.2});
  const auto j = judge_groups(g);
  for (const auto& v : j.groups) EXPECT_EQ(v.kind, Kind::Healthy);
  const auto f = group_findings(g, j, GroupKind::Node, "x");
  ASSERT_EQ(codes(f), std::vector<std::string>{"GROUPS_EVEN"});
  EXPECT_EQ(f[0].tag, Tag::Pass);
}

TEST(GroupVerdicts, TwoGroupsApartAreBothInconclusive) {
  const auto g = nodes({100, 60});
  const auto j = judge_groups(g);
  EXPECT_EQ(j.groups[0].kind, Kind::Inconclusive);
  EXPECT_EQ(j.groups[1].kind, Kind::Inconclusive);
  const auto f = group_findings(g, j, GroupKind::Node, "x");
  ASSERT_EQ(codes(f), std::vector<std::string>{"GROUPS_INCONCLUSIVE"});
  EXPECT_NE(f[0].message.find("differ by 40%"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("hunt with a third node"), std::string::npos);
}

TEST(GroupVerdicts, TwoGroupsCloseTogetherPass) {
  const auto g = nodes({100, 95});
  EXPECT_EQ(codes(group_findings(g, judge_groups(g), GroupKind::Node, "x")), std::vector<std::string>{"GROUPS_EVEN"});
}

TEST(GroupVerdicts, FarBelowInsideWideSpreadIsInconclusiveNotSlow) {
  // Wide noise: the MAD bound is below 50, so 55 (45% under) is not called slow, but not passed.
  const auto g = nodes({100, 60, 140, 55, 100, 90, 130});
  const auto j = judge_groups(g);
  EXPECT_EQ(j.groups[3].kind, Kind::Inconclusive);
  for (const auto& v : j.groups) EXPECT_NE(v.kind, Kind::Slow);
}

TEST(GroupVerdicts, SingleRankGroupsAreNotCompared) {
  const auto g = nodes({0, 0, 0});
  EXPECT_TRUE(group_findings(g, judge_groups(g), GroupKind::Rail, "x").empty());
}

TEST(GroupVerdicts, AGapWithinTheIterationsNoiseIsInconclusive) {
  // 14% below with tight medians, but each node's iterations swing by +-1 GB/s over 10 samples:
  // the standard error of the median (~0.4) times 3 exceeds the 0.5 gap.
  std::vector<GroupScore> g;
  for (double bw : {3.8, 3.75, 3.25, 3.78}) g.push_back({"n", bw, 10, 1.0});
  const auto j = judge_groups(g);
  EXPECT_EQ(j.groups[2].kind, Kind::Inconclusive);
  EXPECT_NE(j.groups[2].reason.find("within the noise of its iterations"), std::string::npos) << j.groups[2].reason;
  // The same gap with quiet iterations is a finding.
  for (auto& x : g) x.noise_gbs = 0.05;
  EXPECT_EQ(judge_groups(g).groups[2].kind, Kind::Slow);
}

TEST(GroupVerdicts, TwoRunsNameOnlyWhatIsSlowInBoth) {
  const auto slow = judge_groups(nodes({300, 305, 180, 298}));
  const auto even = judge_groups(nodes({300, 305, 299, 298}));
  const auto doubt = judge_groups(nodes({100, 60, 140, 55, 100, 90, 130}));
  EXPECT_EQ(combine_runs(slow, slow).groups[2].kind, Kind::Slow);
  EXPECT_EQ(combine_runs(even, even).groups[2].kind, Kind::Healthy);
  const auto once = combine_runs(slow, even);
  EXPECT_EQ(once.groups[2].kind, Kind::Inconclusive);
  EXPECT_NE(once.groups[2].reason.find("slow in one of two runs only (40% and"), std::string::npos) << once.groups[2].reason;
  EXPECT_EQ(combine_runs(even, slow).groups[2].kind, Kind::Inconclusive);
  EXPECT_EQ(combine_runs(doubt, judge_groups(nodes({100, 100, 100, 100, 100, 100, 100}))).groups[3].kind, Kind::Healthy);
}

TEST(GroupVerdicts, TooFewSamplesIsInconclusive) {
  auto g = nodes({100, 101, 99, 50});
  g[3].samples = 2;
  const auto j = judge_groups(g);
  EXPECT_EQ(j.groups[3].kind, Kind::Inconclusive);
  EXPECT_EQ(j.groups[3].reason, "only 2 samples (need 3)");
}

}  // namespace
}  // namespace collbench::report
