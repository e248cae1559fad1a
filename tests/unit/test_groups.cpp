#include <gtest/gtest.h>

#include "bench/errors.h"
#include "launcher/verdicts/groups.h"

namespace collbench {
namespace {

report::WorldInfo two_nodes(int per_node_a, int per_node_b) {
  report::WorldInfo w;
  w.gpus_per_process = 1;
  report::NodeInfo a{"node-a", {}}, b{"node-b", {}};
  int r = 0;
  for (int i = 0; i < per_node_a; ++i) a.ranks.push_back(r++);
  for (int i = 0; i < per_node_b; ++i) b.ranks.push_back(r++);
  w.ranks = r;
  w.nodes = {a, b};
  return w;
}

}  // namespace

TEST(Groups, WorldNodeAndRailLayouts) {
  const auto w = two_nodes(4, 4);
  const auto world = make_layout(Scope::World, w);
  ASSERT_EQ(world.groups.size(), 1u);
  EXPECT_EQ(world.groups[0].ranks.size(), 8u);

  const auto node = make_layout(Scope::Node, w);
  ASSERT_EQ(node.groups.size(), 2u);
  EXPECT_EQ(node.groups[1].ranks, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(node.labels[1], "node-b");
  EXPECT_EQ(node.group_of_rank[5], 1);

  const auto rail = make_layout(Scope::Rail, w);
  ASSERT_EQ(rail.groups.size(), 4u);
  EXPECT_EQ(rail.groups[2].ranks, (std::vector<int>{2, 6}));
  EXPECT_EQ(rail.groups[2].scope, Scope::Rail);
  EXPECT_EQ(rail.group_of_rank[6], 2);
}

TEST(Groups, RefusesUnequalGroupsAndRailsSharedByAProcess) {
  EXPECT_THROW(make_layout(Scope::Node, two_nodes(4, 2)), UsageError);
  EXPECT_THROW(make_layout(Scope::Rail, two_nodes(4, 2)), UsageError);
  auto w = two_nodes(4, 4);
  w.gpus_per_process = 4;
  EXPECT_THROW(make_layout(Scope::Rail, w), UsageError);
  EXPECT_NO_THROW(make_layout(Scope::Node, w));
}

TEST(Groups, ResultsPerGroupUseEachGroupsOwnRanksAndChecks) {
  const auto w = two_nodes(2, 2);
  const auto layout = make_layout(Scope::Node, w);
  CaseMeasurement m;
  m.samples_s = {{1e-3, 1e-3}, {1e-3, 1e-3}, {4e-3, 4e-3}, {4e-3, 4e-3}};  // node-b is 4x slower
  m.wrong_by_process = {0, 0, 2, 1};
  report::RawCase base;
  base.op = "all_reduce";
  base.bytes = 1000000;
  const auto results = results_by_group(m, base, [](int n) { return 2.0 * (n - 1) / n; }, layout, w,
                                        report::RankReduce::Mean);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].group.scope, Scope::Node);
  EXPECT_EQ(results[1].group.ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(results[0].wrong, 0);
  EXPECT_EQ(results[1].wrong, 3);
  EXPECT_NEAR(results[0].busbw_gbs / results[1].busbw_gbs, 4.0, 1e-9);
  ASSERT_EQ(results[1].node_median_us.size(), 1u);
  EXPECT_EQ(results[1].node_median_us[0].node, "node-b");
}

}  // namespace collbench
