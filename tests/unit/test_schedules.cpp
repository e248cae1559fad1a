#include <gtest/gtest.h>

#include <set>

#include "bench/schedules.h"

namespace collbench {

namespace {

// Distinct partners per node over the whole schedule.
std::vector<std::set<int>> partners(const Schedule& s, int n) {
  std::vector<std::set<int>> out(n);
  for (const auto& r : s)
    for (const auto& [a, b] : r.pairs) {
      out[a].insert(b);
      out[b].insert(a);
    }
  return out;
}

}  // namespace

TEST(Schedule, PairwiseCoversEveryPairOnceInNodeDisjointRounds) {
  for (int n = 2; n <= 64; ++n) {
    SCOPED_TRACE(n);
    const Schedule s = pairwise_schedule(n);
    EXPECT_EQ(check_schedule(s, n), std::nullopt);
    EXPECT_EQ(static_cast<int>(s.size()), n % 2 == 0 ? n - 1 : n);
    EXPECT_EQ(schedule_pairs(s), n * (n - 1) / 2);
    std::set<std::pair<int, int>> seen;
    for (const auto& r : s) {
      EXPECT_EQ(static_cast<int>(r.pairs.size()), n / 2);  // odd n: exactly one node idle
      for (const auto& [a, b] : r.pairs) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " twice";
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), n * (n - 1) / 2);
  }
  EXPECT_TRUE(pairwise_schedule(1).empty());
  EXPECT_TRUE(pairwise_schedule(0).empty());
}

TEST(Schedule, ScreenGivesEveryNodeTwoDistinctPartnersInFewRounds) {
  for (int n = 3; n <= 64; ++n) {
    SCOPED_TRACE(n);
    const Schedule s = screen_schedule(n);
    EXPECT_EQ(check_schedule(s, n), std::nullopt);
    EXPECT_LE(s.size(), 3u);
    std::set<std::pair<int, int>> seen;
    for (const auto& r : s)
      for (const auto& p : r.pairs) EXPECT_TRUE(seen.insert(p).second);
    for (const auto& p : partners(s, n)) EXPECT_GE(p.size(), 2u);
    if (n % 2 == 0 && n >= 4) {  // the stride round completes a third partner for everyone
      for (const auto& p : partners(s, n)) EXPECT_GE(p.size(), 3u);
    }
  }
  // Two nodes have one possible partner: one round, one pair.
  const Schedule two = screen_schedule(2);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].pairs, (std::vector<std::pair<int, int>>{{0, 1}}));
  EXPECT_EQ(schedule_pairs(screen_schedule(3)), 3);
  EXPECT_TRUE(screen_schedule(1).empty());
}

TEST(Schedule, ScreenIsMuchShorterThanPairwiseAtScale) {
  EXPECT_EQ(screen_schedule(4096).size(), 3u);
  EXPECT_EQ(schedule_pairs(screen_schedule(4096)), 3 * 2048);
  EXPECT_EQ(pairwise_schedule(4096).size(), 4095u);
}

TEST(Schedule, ConfirmPairsEachSuspectWithADistinctHealthyNode) {
  const Schedule s = confirm_schedule({3, 7}, {0, 1, 2});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].pairs, (std::vector<std::pair<int, int>>{{0, 3}, {1, 7}}));
  EXPECT_EQ(check_schedule(s, 8), std::nullopt);

  // More suspects than healthy nodes: extra rounds, still one healthy partner per suspect.
  const std::vector<int> suspects{4, 5, 6, 7, 8};
  const Schedule more = confirm_schedule(suspects, {0, 1});
  EXPECT_EQ(more.size(), 3u);
  EXPECT_EQ(check_schedule(more, 9), std::nullopt);
  std::set<int> confirmed;
  for (const auto& r : more)
    for (const auto& [a, b] : r.pairs) {
      EXPECT_LT(a, 2);  // the healthy one
      EXPECT_TRUE(confirmed.insert(b).second);
    }
  EXPECT_EQ(confirmed, std::set<int>(suspects.begin(), suspects.end()));

  EXPECT_TRUE(confirm_schedule({1}, {}).empty());
  EXPECT_TRUE(confirm_schedule({}, {0}).empty());
  // A node listed as both is a suspect, never a partner.
  EXPECT_EQ(confirm_schedule({2}, {2, 5}), (Schedule{Round{{{2, 5}}}}));
}

TEST(Schedule, AutoIsPairwiseForSmallClustersElseScreen) {
  EXPECT_EQ(auto_schedule(8).size(), 7u);
  EXPECT_EQ(auto_schedule(5).size(), 5u);
  EXPECT_EQ(auto_schedule(9).size(), screen_schedule(9).size());
  EXPECT_EQ(auto_schedule(64).size(), 3u);
}

TEST(Schedule, CheckRejectsOverlapsSelfPairsAndRange) {
  EXPECT_NE(check_schedule({Round{{{0, 1}, {1, 2}}}}, 3), std::nullopt);
  EXPECT_NE(check_schedule({Round{{{2, 2}}}}, 3), std::nullopt);
  EXPECT_NE(check_schedule({Round{{{0, 3}}}}, 3), std::nullopt);
  EXPECT_NE(check_schedule({Round{{{-1, 0}}}}, 3), std::nullopt);
  EXPECT_EQ(check_schedule({Round{{{0, 1}}}, Round{{{1, 2}}}}, 3), std::nullopt);
}

}  // namespace collbench
