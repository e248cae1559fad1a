// The attribution rule on small clusters (N = 2..8), the common case: per-iteration samples with
// busy-host swings, confirmation rounds, and the false-alarm rate of noise alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "bench/schedules.h"
#include "reports/pairs/attribution.h"
#include "attribution_model.h"

namespace collbench::report {
namespace {

using namespace attribution_model;

// Small clusters, the common case. Per-iteration samples with +-30% swings, as on a busy host.
std::vector<PairSample> small_cluster(int n, const Model& bw, int iters, unsigned seed, bool confirmation = false,
                                      int round0 = 0) {
  const Schedule s = pairwise_schedule(n);
  auto m = noisy(0.3, bw, seed);
  std::vector<PairSample> out = measure(s, iters, m);
  for (auto& p : out) {
    p.round += round0;
    p.confirmation = confirmation;
  }
  return out;
}

AttributionOptions confirmed() {
  AttributionOptions o;
  o.require_confirmation = true;
  return o;
}

// Re-measures every suspect against its best healthy partner, as the hunt's confirmation does.
std::vector<PairSample> with_confirmation(std::vector<PairSample> s, int n, const Model& bw, unsigned seed,
                                         int iters = 5) {
  const Attribution first = attribute(s, n);
  std::vector<int> healthy;
  for (const auto& nv : first.nodes)
    if (nv.kind == Kind::Healthy) healthy.push_back(nv.node);
  auto m = noisy(0.3, bw, seed + 1000);
  int round = 100;
  auto add = [&](int a, int b) {
    PairSample p{std::min(a, b), std::max(a, b), round++, {}, true};
    for (int i = 0; i < iters; ++i) p.rates.push_back(m(p.a, p.b, p.round));
    s.push_back(std::move(p));
  };
  for (const auto& nv : first.nodes)
    if (nv.kind != Kind::Healthy && !healthy.empty()) add(nv.node, healthy.front() == nv.node ? healthy.back() : healthy.front());
  for (const auto* ls : {&first.slow_links, &first.suspect_links})
    for (const auto& l : *ls) add(l.a, l.b);
  return s;
}

TEST(AttributionSmall, ASlowNodeIsNamedAtThreeAndFourNodes) {
  for (int n : {3, 4}) {
    for (unsigned seed = 1; seed <= 10; ++seed) {
      SCOPED_TRACE(testing::Message() << n << " nodes, seed " << seed);
      const Model bw = slow_nodes({n - 1}, 0.15);
      const auto s = with_confirmation(small_cluster(n, bw, 5, seed), n, bw, seed);
      const auto at = attribute(s, n, confirmed());
      EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{n - 1});
      EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
      EXPECT_TRUE(at.slow_links.empty());
      EXPECT_NE(at.nodes[n - 1].reason.find("confirmation"), std::string::npos) << at.nodes[n - 1].reason;
    }
  }
}

// The ctest case of the hunt on the fake cluster, 4 nodes x 2 ranks, node 2 limited: every pair
// with node 2 about 0.011 GB/s, the others 0.044-0.10. Half the pairs touch the slow node, which
// is why a median over all pairs could not separate them; held against the pairs without it, it can.
TEST(AttributionSmall, HalfThePairsSlowAtFourNodesIsTheirCommonNode) {
  const std::map<std::pair<int, int>, double> med{{{0, 1}, 0.044}, {{0, 2}, 0.0112}, {{0, 3}, 0.10},
                                                  {{1, 2}, 0.0115}, {{1, 3}, 0.071}, {{2, 3}, 0.0113}};
  const Model bw = [&](int a, int b, int) { return med.at({a, b}); };
  const auto s = with_confirmation(small_cluster(4, bw, 10, 3), 4, bw, 3);
  const auto at = attribute(s, 4, confirmed());
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{2});
  EXPECT_EQ(of_kind(at, Kind::Inconclusive), std::vector<int>{});
  EXPECT_TRUE(at.slow_links.empty());
}

TEST(AttributionSmall, ASlowLinkAtThreeNodesIsTheLink) {
  const Model bw = [](int a, int b, int) { return a == 0 && b == 1 ? 15.0 : 100.0; };
  const auto s = with_confirmation(small_cluster(3, bw, 8, 5), 3, bw, 5);
  const auto at = attribute(s, 3, confirmed());
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  ASSERT_EQ(at.slow_links.size(), 1u);
  EXPECT_EQ(at.slow_links[0].a + at.slow_links[0].b, 1);
}

// The false-alarm rate the rule is built for, measured: healthy clusters of 3 to 8 nodes whose
// iterations swing +-30% (uniform), 200 hunts per size. With 10 samples a pair (a hunt's round
// takes more unless its pairs are very slow) none may end with a straggler or a slow link; with 5,
// at most 1 in 500. Printed, so a change of rule shows what it costs.
TEST(AttributionSmall, NoiseAloneNeverAccuses) {
  for (int iters : {5, 10}) {
    int hunts = 0, accused = 0, doubtful = 0;
    for (int n = 3; n <= 8; ++n)
      for (unsigned seed = 1; seed <= 200; ++seed) {
        const Model bw = slow_nodes({}, 1);
        const auto at =
            attribute(with_confirmation(small_cluster(n, bw, iters, seed), n, bw, seed, iters), n, confirmed());
        ++hunts;
        accused += !of_kind(at, Kind::Straggler).empty() || !at.slow_links.empty();
        doubtful += !of_kind(at, Kind::Inconclusive).empty() || !at.suspect_links.empty();
      }
    std::printf("noise only, %d samples a pair: %d of %d hunts accused a node or link, %d inconclusive\n", iters,
                accused, hunts, doubtful);
    EXPECT_LE(accused, iters >= 10 ? 0 : hunts / 500) << iters << " samples";
    EXPECT_LT(doubtful, hunts / 10) << iters << " samples";
  }
}

TEST(AttributionSmall, AStragglerIsNamedOnlyWhenConfirmed) {
  const int n = 5;
  const Model bw = slow_nodes({1}, 0.2);
  const auto first = small_cluster(n, bw, 5, 9);
  // No confirmation measured: in doubt, and said why.
  const auto none = attribute(first, n, confirmed());
  EXPECT_EQ(of_kind(none, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(of_kind(none, Kind::Inconclusive), std::vector<int>{1});
  EXPECT_NE(none.nodes[1].reason.find("not confirmed"), std::string::npos) << none.nodes[1].reason;
  // Normal against a healthy partner in the confirmation: the first rounds were not the node.
  auto cleared = first;
  cleared.push_back({1, 3, 50, {100, 98, 103, 99, 101}, true});
  const auto c = attribute(cleared, n, confirmed());
  EXPECT_EQ(of_kind(c, Kind::Straggler), std::vector<int>{});
  EXPECT_EQ(c.nodes[1].kind, Kind::Inconclusive);
  EXPECT_NE(c.nodes[1].reason.find("normal with n3"), std::string::npos) << c.nodes[1].reason;
  // Slow again: named.
  auto again = first;
  again.push_back({1, 3, 50, {20, 21, 19, 20, 22}, true});
  EXPECT_EQ(of_kind(attribute(again, n, confirmed()), Kind::Straggler), std::vector<int>{1});
}

TEST(AttributionSmall, TwoNodesJudgeNoNodeAndSaySo) {
  std::vector<PairSample> s{{0, 1, 0, {10, 11, 9, 10}}};
  const auto at = attribute(s, 2, confirmed());
  EXPECT_TRUE(at.two_nodes);
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{});
  const auto f = attribution_findings(at, hosts(2), "pair busbw");
  ASSERT_EQ(codes(f), std::vector<std::string>{"HUNT_TWO_NODES"});
  EXPECT_EQ(f[0].tag, Tag::Info);
  // The one figure there is, in its unit.
  EXPECT_NE(f[0].message.find("(pair busbw 10 GB/s)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("cannot be pinned"), std::string::npos);
}

// Seen on the fake cluster, 4 nodes x 1 rank, node 2 limited: after node 2, node 3's pairs were
// 2.5x below the one pair left without it (0-1), in the confirmation too. One pair cannot say how
// far healthy pairs differ (on a shared host, 2x): node 3 is in doubt, not a second straggler.
TEST(AttributionSmall, ASecondNodeAgainstOnePairIsOnlyInDoubt) {
  std::vector<PairSample> s;
  auto add = [&](int a, int b, int round, double level, bool confirm = false) {
    PairSample p{a, b, round, {}, confirm};
    for (int i = 0; i < 50; ++i) p.rates.push_back(level * (1 + 0.1 * ((i % 5) - 2) / 2));
    s.push_back(std::move(p));
  };
  add(0, 3, 0, 0.562);
  add(1, 2, 0, 0.0135);
  add(1, 3, 1, 0.469);
  add(0, 2, 1, 0.0135);
  add(2, 3, 2, 0.0135);
  add(0, 1, 2, 1.22);
  add(0, 2, 3, 0.0134, true);
  add(1, 3, 3, 0.439, true);
  const auto at = attribute(s, 4, confirmed());
  EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{2});
  EXPECT_EQ(at.nodes[3].kind, Kind::Inconclusive);
  EXPECT_TRUE(at.slow_links.empty());
}

// Seen in CI, the 4 x 2 hunt beside another fake cluster's jobs (6.5 runnable tasks per core):
// node 2's pairs 0.0102-0.0112 GB/s, the others 0.033-0.061, in the confirmation too (2-3 again
// slow, 0-1 again normal), every iteration swinging far more than idle. Three pairs without
// node 2 cannot say how far healthy pairs differ under such noise, so node 2 may end in doubt;
// it must not pass, since every pair of it is far below every other pair.
TEST(AttributionSmall, ANodeFarBelowWithEveryPartnerDoesNotPassHoweverNoisy) {
  const std::map<std::pair<int, int>, std::pair<double, int>> med{
      {{0, 3}, {0.0328, 195}}, {{1, 2}, {0.0111, 67}}, {{1, 3}, {0.0606, 200}},
      {{0, 2}, {0.0102, 61}},  {{2, 3}, {0.011, 67}},  {{0, 1}, {0.0345, 200}}};
  for (double swing : {0.2, 0.4, 0.6, 0.8}) {
    for (unsigned seed = 1; seed <= 5; ++seed) {
      SCOPED_TRACE(testing::Message() << "swing " << swing << ", seed " << seed);
      auto m = noisy(swing, [](int, int, int) { return 1.0; }, seed);
      std::vector<PairSample> s;
      auto add = [&](std::pair<int, int> ab, int round, bool confirmation) {
        const auto& [level, samples] = med.at(ab);
        PairSample p{ab.first, ab.second, round, {}, confirmation};
        for (int i = 0; i < samples; ++i) p.rates.push_back(level * m(0, 1, 0));
        s.push_back(std::move(p));
      };
      int round = 0;
      for (const auto& entry : med) add(entry.first, round++ / 2, false);
      add({0, 1}, 5, true);
      add({2, 3}, 5, true);
      const auto at = attribute(s, 4, confirmed());
      EXPECT_NE(at.nodes[2].kind, Kind::Healthy) << at.nodes[2].reason;
      // Power: with iterations as steady as an idle host's, the same figures name it.
      if (swing <= 0.2) {
        EXPECT_EQ(of_kind(at, Kind::Straggler), std::vector<int>{2}) << at.nodes[2].reason;
      }
      const auto c = codes(attribution_findings(at, hosts(4), "pair busbw"));
      EXPECT_EQ(std::count(c.begin(), c.end(), "NO_STRAGGLER"), 0);
    }
  }
}

}  // namespace
}  // namespace collbench::report
