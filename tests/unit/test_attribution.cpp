#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "bench/schedules.h"
#include "reports/pairs/attribution.h"
#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "attribution_model.h"

namespace collbench::report {

using namespace attribution_model;

TEST(AttributionStats, ScaledMad) {
  EXPECT_DOUBLE_EQ(scaled_mad(std::vector<double>{1, 2, 3, 4, 100}), 1.4826);
  EXPECT_DOUBLE_EQ(scaled_mad(std::vector<double>{5, 5, 5}), 0);
  EXPECT_DOUBLE_EQ(scaled_mad(std::vector<double>{}), 0);
}

TEST(Attribution, OneSlowNodeIsFlaggedAndOnlyIt) {
  for (int n : {4, 5, 8, 16}) {
    SCOPED_TRACE(n);
    const auto at = attribute(measure(pairwise_schedule(n), 3, noisy(0.05, slow_nodes({2}, 0.3))), n);
    EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{2});
    EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
    EXPECT_TRUE(at.slow_links.empty());
    EXPECT_TRUE(at.fabric_wide_rounds.empty());
    EXPECT_NEAR(at.nodes[2].drop, 0.7, 0.06);
    EXPECT_NEAR(at.cluster_median, 100, 6);
    ASSERT_FALSE(at.nodes[2].worst_partners.empty());
    EXPECT_LE(at.nodes[2].worst_partners.size(), 3u);
  }
}

TEST(Attribution, OneSlowNodeOnTheScreenDoesNotDragItsPartners) {
  // Three partners per node only: the straggler's partners see one slow pair of three.
  const int n = 16;
  const auto at = attribute(measure(screen_schedule(n), 5, noisy(0.05, slow_nodes({9}, 0.1))), n);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{9});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
  EXPECT_TRUE(at.slow_links.empty());
}

TEST(Attribution, TwoSlowNodes) {
  const int n = 12;
  const auto at = attribute(measure(pairwise_schedule(n), 3, noisy(0.05, slow_nodes({1, 7}, 0.5))), n);
  EXPECT_EQ(of_kind(at, Kind::Straggler), (std::vector<int>{1, 7}));
  EXPECT_TRUE(at.slow_links.empty());
  const auto f = attribution_findings(at, hosts(n), "pair all_reduce busbw at 64 MiB");
  EXPECT_EQ(codes(f), (std::vector<std::string>{"STRAGGLER_NODE", "STRAGGLER_NODE"}));
}

TEST(Attribution, OneSlowLinkNamesTheLinkNotTheNodes) {
  for (int n : {4, 8, 16}) {
    SCOPED_TRACE(n);
    const Model link = [](int a, int b, int) { return (a == 1 && b == 3) ? 40.0 : 100.0; };
    const auto at = attribute(measure(pairwise_schedule(n), 3, noisy(0.05, link)), n);
    EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
    EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
    ASSERT_EQ(at.slow_links.size(), 1u);
    EXPECT_EQ(at.slow_links[0].a, 1);
    EXPECT_EQ(at.slow_links[0].b, 3);
    EXPECT_NEAR(at.slow_links[0].drop, 0.6, 0.06);
    EXPECT_TRUE(at.fabric_wide_rounds.empty());
    const auto f = attribution_findings(at, hosts(n), "pair busbw");
    ASSERT_EQ(codes(f), std::vector<std::string>{"SLOW_LINK"});
    EXPECT_NE(f[0].message.find("ip-198-18-0-11 <-> ip-198-18-0-13"), std::string::npos) << f[0].message;
  }
}

// Seen on the fake cluster: healthy pairs spread widely, one pair at half the median. The MAD rule
// cannot call it a slow link, and it must not pass silently either.
TEST(Attribution, AFarSlowPairWithinWideNoiseIsInconclusiveNotHealthy) {
  std::vector<PairSample> samples;
  const double pair_bw[4][4] = {{0, 8, 17, 16}, {8, 0, 16, 20}, {17, 16, 0, 24}, {16, 20, 24, 0}};
  const Schedule s = pairwise_schedule(4);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) samples.push_back({a, b, r, {pair_bw[a][b], pair_bw[a][b], pair_bw[a][b]}});
  const Attribution at = attribute(samples, 4);
  EXPECT_TRUE(at.slow_links.empty());
  ASSERT_EQ(at.suspect_links.size(), 1u);
  EXPECT_EQ(at.suspect_links[0].a + at.suspect_links[0].b, 1);  // nodes 0 and 1
  const auto f = codes(attribution_findings(at, hosts(4), "pair busbw"));
  EXPECT_EQ(std::count(f.begin(), f.end(), "HUNT_INCONCLUSIVE"), 1);
  EXPECT_EQ(std::count(f.begin(), f.end(), "NO_STRAGGLER"), 0);
}

// Seen on the fake cluster (GB/s): pairwise over 4 nodes, the 0-1 link shaped; node 1 met one
// other partner a little low, so its median over three partners fell 11% under the cluster's.
// The link explains it: the link is named, and node 1 is not left in doubt.
TEST(Attribution, ASlowLinkDoesNotDragItsNodeIntoDoubt) {
  std::vector<PairSample> samples;
  const double pair_bw[4][4] = {{0, 2.4, 16.6, 17.1}, {2.4, 0, 14.8, 16.7}, {16.6, 14.8, 0, 16.4}, {17.1, 16.7, 16.4, 0}};
  const Schedule s = pairwise_schedule(4);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) samples.push_back({a, b, r, {pair_bw[a][b], pair_bw[a][b], pair_bw[a][b]}});
  const Attribution at = attribute(samples, 4);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
  ASSERT_EQ(at.slow_links.size(), 1u);
  EXPECT_EQ(at.slow_links[0].a, 0);
  EXPECT_EQ(at.slow_links[0].b, 1);
  EXPECT_EQ(codes(attribution_findings(at, hosts(4), "pair busbw")), std::vector<std::string>{"SLOW_LINK"});
}

// Seen on the fake cluster (GB/s): healthy pairs spread +-30% and the shaped 0-1 link at 1% of
// them. Three scaled MADs of six pairs reach below zero; the cap still names the link.
TEST(Attribution, APairAtOnePercentIsSlowHoweverWideTheSpread) {
  std::vector<PairSample> samples;
  const double pair_bw[4][4] = {
      {0, 0.00267, 0.351, 0.203}, {0.00267, 0, 0.218, 0.348}, {0.351, 0.218, 0, 0.252}, {0.203, 0.348, 0.252, 0}};
  const Schedule s = pairwise_schedule(4);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) samples.push_back({a, b, r, {pair_bw[a][b], pair_bw[a][b], pair_bw[a][b]}});
  const Attribution at = attribute(samples, 4);
  ASSERT_EQ(at.slow_links.size(), 1u);
  EXPECT_EQ(at.slow_links[0].a + at.slow_links[0].b, 1);
  EXPECT_EQ(codes(attribution_findings(at, hosts(4), "pair busbw")), std::vector<std::string>{"SLOW_LINK"});
}

// Seen on the fake cluster (GB/s), no shaping: six pair medians with a small spread, one 14% under
// them, every pair's iterations swinging +-25%. Not beyond the noise of its own iterations: no link
// to blame. The same medians measured without noise name the link.
TEST(Attribution, ALinkGapWithinItsIterationsNoiseIsNotALink) {
  const std::map<std::pair<int, int>, double> med{{{0, 1}, 0.245}, {{0, 2}, 0.234}, {{0, 3}, 0.257},
                                                  {{1, 2}, 0.238}, {{1, 3}, 0.232}, {{2, 3}, 0.203}};
  std::vector<PairSample> samples;
  const Schedule s = pairwise_schedule(4);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) {
      PairSample p{a, b, r, {}};
      for (int i = 0; i < 10; ++i) p.rates.push_back(med.at({a, b}) * (1 + 0.25 * (i - 4.5) / 4.5));
      samples.push_back(std::move(p));
    }
  const Attribution at = attribute(samples, 4);
  EXPECT_TRUE(at.slow_links.empty());
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  const auto f = codes(attribution_findings(at, hosts(4), "pair busbw"));
  EXPECT_EQ(std::count(f.begin(), f.end(), "SLOW_LINK"), 0);
  for (auto& p : samples) p.rates.assign(10, med.at({p.a, p.b}));
  EXPECT_EQ(attribute(samples, 4).slow_links.size(), 1u);
}

TEST(Attribution, UniformNoiseFlagsNoOne) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    for (int n : {4, 7, 16, 33}) {
      const auto at = attribute(measure(auto_schedule(n), 3, noisy(0.05, slow_nodes({}, 1), seed)), n);
      EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{}) << n << " seed " << seed;
      EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{}) << n << " seed " << seed;
      EXPECT_TRUE(at.slow_links.empty());
      EXPECT_TRUE(at.fabric_wide_rounds.empty());
      EXPECT_EQ(codes(attribution_findings(at, hosts(n), "x")), std::vector<std::string>{"NO_STRAGGLER"});
    }
  }
}

TEST(Attribution, ARoundWhereEverythingIsSlowIsFabricWide) {
  const int n = 8;
  const Model base = [](int, int, int r) { return r == 4 ? 30.0 : 100.0; };
  const auto at = attribute(measure(pairwise_schedule(n), 3, noisy(0.05, base)), n);
  EXPECT_EQ(at.fabric_wide_rounds, std::vector<int>{4});
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
  EXPECT_TRUE(at.slow_links.empty());
  const auto f = attribution_findings(at, hosts(n), "pair busbw");
  ASSERT_EQ(codes(f), (std::vector<std::string>{"FABRIC_WIDE_SLOWDOWN", "NO_STRAGGLER"}));
  EXPECT_EQ(f[0].tag, Tag::Warn);
  EXPECT_EQ(f[0].priority, Priority::P1);
  EXPECT_EQ(f[0].reference, ref::kMultiNode);
  // The matrix still shows what was measured in that round.
  EXPECT_LT(at.matrix[pairwise_schedule(n)[4].pairs[0].first][pairwise_schedule(n)[4].pairs[0].second], 40);
}

TEST(Attribution, EverythingUniformlySlowBlamesNoNode) {
  // Relative judgement only: a uniformly slow fabric is the thresholds' call, never a node's fault.
  const int n = 8;
  const auto at = attribute(measure(pairwise_schedule(n), 3, noisy(0.05, [](int, int, int) { return 10.0; })), n);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_TRUE(at.slow_links.empty());
  EXPECT_NEAR(at.cluster_median, 10, 1);
}

TEST(Attribution, TooFewSamplesIsInconclusiveNotAnAccusation) {
  const int n = 8;
  const auto at = attribute(measure(pairwise_schedule(n), 2, noisy(0.05, slow_nodes({5}, 0.3))), n);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{5});
  EXPECT_NE(at.nodes[5].reason.find("samples"), std::string::npos);
  const auto f = attribution_findings(at, hosts(n), "pair busbw");
  ASSERT_EQ(codes(f), std::vector<std::string>{"HUNT_INCONCLUSIVE"});
  EXPECT_EQ(f[0].tag, Tag::Warn);
  EXPECT_EQ(f[0].priority, Priority::P2);
  EXPECT_NE(f[0].message.find("rerun with more iterations"), std::string::npos);
  EXPECT_NE(f[0].message.find("ip-198-18-0-15"), std::string::npos);

  // A slow link on too few samples: no link named, its nodes inconclusive.
  const Model link = [](int a, int b, int) { return (a == 0 && b == 6) ? 40.0 : 100.0; };
  const auto al = attribute(measure(pairwise_schedule(n), 1, link), n);
  EXPECT_TRUE(al.slow_links.empty());
  EXPECT_EQ(of_kind(al, Kind::Inconclusive), (std::vector<int>{0, 6}));
}

TEST(Attribution, ASlowPairBesideANormalOneIsALinkNotTheNode) {
  // Node 0 met only two partners: slow with 1, normal with 2, and 1 is fine elsewhere. A slow node
  // makes every pair of it slow, so the normal pair clears node 0 and the 0-1 link is named.
  std::vector<PairSample> s;
  const std::vector<std::pair<int, int>> pairs{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}, {1, 2}};
  for (const auto& [a, b] : pairs) s.push_back({a, b, 0, {a == 0 && b == 1 ? 20.0 : 100.0, 100, 100}});
  for (auto& p : s)
    if (p.a == 0 && p.b == 1) p.rates = {20, 21, 19};
  const auto at = attribute(s, 5);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
  ASSERT_EQ(at.slow_links.size(), 1u);
  EXPECT_EQ(at.slow_links[0].a, 0);
  EXPECT_EQ(at.slow_links[0].b, 1);
}

// Node 0's pairs disagree without a link to explain them: slow with two partners of three, but
// those pairs swing so widely that neither is beyond its own noise. Node 0 is in doubt.
TEST(Attribution, DisagreeingPairsWithoutALinkAreInconclusive) {
  std::vector<PairSample> s;
  const Schedule sched = pairwise_schedule(4);
  for (int r = 0; r < static_cast<int>(sched.size()); ++r)
    for (const auto& [a, b] : sched[r].pairs) {
      if (a == 0 && b != 3) s.push_back({a, b, r, {40, 110, 75, 45, 105, 75, 70}});
      else s.push_back({a, b, r, {100, 101, 99, 100, 100, 102, 98}});
    }
  const auto at = attribute(s, 4);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  EXPECT_TRUE(at.slow_links.empty());
  EXPECT_EQ(at.nodes[0].kind, Kind::Inconclusive);
  EXPECT_NE(at.nodes[0].reason.find("disagree"), std::string::npos) << at.nodes[0].reason;
}

TEST(Attribution, FindingsCarryCodesTagsAndReferences) {
  const int n = 8;
  const auto at = attribute(measure(pairwise_schedule(n), 3, slow_nodes({3}, 0.25)), n);
  const auto f = attribution_findings(at, hosts(n), "pair all_reduce busbw at 64 MiB");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "STRAGGLER_NODE");
  EXPECT_EQ(f[0].tag, Tag::Fail);
  EXPECT_EQ(f[0].priority, Priority::P1);
  EXPECT_EQ(f[0].reference, std::string(ref::kStraggler));
  EXPECT_EQ(f[0].reference, "references/performance-testing.md \u00a7 Straggler Node \u2014 Detection and Replacement");
  const std::string& m = f[0].message;
  EXPECT_NE(m.find("ip-198-18-0-13: pair all_reduce busbw at 64 MiB 25 GB/s"), std::string::npos) << m;
  EXPECT_NE(m.find("75% below the cluster median 100 GB/s"), std::string::npos) << m;
  EXPECT_NE(m.find("worst partners: ip-198-18-0-"), std::string::npos) << m;
  EXPECT_NE(m.find("scontrol update nodename=ip-198-18-0-13 state=drain reason=\"collbench: slow\""), std::string::npos)
      << m;

  const Model link = [](int a, int b, int) { return (a == 2 && b == 5) ? 50.0 : 100.0; };
  const auto fl = attribution_findings(attribute(measure(pairwise_schedule(n), 3, link), n), hosts(n), "x");
  ASSERT_EQ(fl.size(), 1u);
  EXPECT_EQ(fl[0].tag, Tag::Fail);
  EXPECT_EQ(fl[0].priority, Priority::P1);
  EXPECT_EQ(fl[0].reference, "references/performance-testing.md \u00a7 Pairwise Bandwidth Test (identify slow pairs)");

  const auto ok = attribution_findings(attribute(measure(pairwise_schedule(n), 3, slow_nodes({}, 1)), n), hosts(n), "x");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].tag, Tag::Pass);
  EXPECT_EQ(ok[0].code, "NO_STRAGGLER");
}

TEST(Attribution, UnmeasuredNodesAndBadInput) {
  const auto at = attribute({{0, 1, 0, {10, 10, 10}}}, 3);
  EXPECT_EQ(at.nodes[2].kind, Kind::Inconclusive);
  EXPECT_TRUE(std::isnan(at.nodes[2].score));
  EXPECT_TRUE(std::isnan(at.matrix[0][2]));
  EXPECT_DOUBLE_EQ(at.matrix[1][0], 10);
  EXPECT_THROW(attribute({{0, 3, 0, {1}}}, 3), std::invalid_argument);
  EXPECT_THROW(attribute({{1, 1, 0, {1}}}, 3), std::invalid_argument);
  const auto empty = attribute({}, 0);
  EXPECT_TRUE(empty.nodes.empty());
}

TEST(Attribution, MatrixRendering) {
  const int n = 16;
  const auto at = attribute(measure(pairwise_schedule(n), 3, slow_nodes({4}, 0.5)), n);
  const std::string m = render_matrix(at, hosts(n));
  EXPECT_NE(m.find("n0=ip-198-18-0-10"), std::string::npos) << m;
  EXPECT_NE(m.find("n15=ip-198-18-0-25"), std::string::npos) << m;
  EXPECT_NE(m.find("* = straggler"), std::string::npos) << m;
  EXPECT_NE(m.find("\nn4*"), std::string::npos) << m;
  EXPECT_NE(m.find(" 50.0"), std::string::npos);
  EXPECT_NE(m.find("100.0"), std::string::npos);
  // One header and one row per node after the legend and title; every line fits a wide terminal.
  std::size_t lines = 0, longest = 0, start = 0;
  for (std::size_t nl; (nl = m.find('\n', start)) != std::string::npos; start = nl + 1) {
    ++lines;
    longest = std::max(longest, nl - start);
  }
  EXPECT_GE(lines, 18u);
  EXPECT_LE(longest, 110u) << m;

  // Diagonal and unmeasured cells are '-'.
  const auto small = attribute({{0, 1, 0, {12.34, 12.34, 12.34}}}, 3);
  EXPECT_EQ(render_matrix(small, {"a", "b", "c"}),
            "nodes: n0=a n1=b n2=c\n"
            "median busbw GB/s per node pair\n"
            "     n0   n1   n2\n"
            "n0    - 12.3    -\n"
            "n1 12.3    -    -\n"
            "n2    -    -    -\n");
}

}  // namespace collbench::report
