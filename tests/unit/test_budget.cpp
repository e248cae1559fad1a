#include <gtest/gtest.h>

#include "launcher/job/budget.h"

namespace collbench {
namespace {

TEST(Budget, DefaultGrowsWithTheSchedule) {
  EXPECT_DOUBLE_EQ(default_budget_s(0), 90);   // two confirmation rounds
  EXPECT_DOUBLE_EQ(default_budget_s(5), 165);  // 6 nodes pairwise: 5 rounds
  EXPECT_DOUBLE_EQ(default_budget_s(7), 195);
}

TEST(Budget, SliceIsTwoThirdsOfAnEvenShareCappedByALongRound) {
  EXPECT_DOUBLE_EQ(round_slice_s(60, 4, 100), 10);  // 60 / 4 * 2 / 3
  EXPECT_DOUBLE_EQ(round_slice_s(600, 2, 2), 2);    // a round that long has samples enough
}

TEST(Budget, NoSliceWhenNothingFits) {
  EXPECT_DOUBLE_EQ(round_slice_s(10, 0, 2), 0);   // no rounds left
  EXPECT_DOUBLE_EQ(round_slice_s(1, 3, 2), 0);    // a third of a second each: not even the set-up
  EXPECT_DOUBLE_EQ(round_slice_s(-5, 2, 2), 0);   // already over
}

}  // namespace
}  // namespace collbench
