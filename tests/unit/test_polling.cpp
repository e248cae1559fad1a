#include <gtest/gtest.h>

#include "bench/ofi/polling.h"

namespace collbench::ofi {
namespace {

TEST(Polling, RanksThatFitTheirCoresSpin) {
  const PollingPlan p = plan_polling({"m1", "m1"}, {2, 2}, {"a", "a"});
  EXPECT_EQ(p.by_rank, (std::vector<Polling>{Polling::Spin, Polling::Spin}));
  EXPECT_EQ(p.summary, "spin");
  EXPECT_EQ(p.reason, "2 ranks on 2 cores");
}

TEST(Polling, AFakeClusterOnOneMachineYields) {
  // Six "nodes" (hostnames) on one kernel with two cores: the boot id, not the host, decides.
  const std::vector<std::string> machine(6, "boot-1");
  const PollingPlan p = plan_polling(machine, std::vector<int>(6, 2), {"n0", "n1", "n2", "n3", "n4", "n5"});
  for (Polling x : p.by_rank) EXPECT_EQ(x, Polling::Yield);
  EXPECT_EQ(p.summary, "yield");
  EXPECT_EQ(p.reason, "6 ranks on 2 cores");
}

TEST(Polling, OnlyTheCrowdedMachineYieldsAndIsNamed) {
  const PollingPlan p =
      plan_polling({"big", "big", "small", "small", "small"}, {96, 96, 2, 2, 2}, {"p5a", "p5a", "tiny", "tiny", "tiny"});
  EXPECT_EQ(p.by_rank,
            (std::vector<Polling>{Polling::Spin, Polling::Spin, Polling::Yield, Polling::Yield, Polling::Yield}));
  EXPECT_EQ(p.summary, "mixed");
  EXPECT_EQ(p.reason, "3 ranks on 2 cores on the most crowded machine, tiny's");
}

TEST(Polling, UnknownCoreCountYields) {
  const PollingPlan p = plan_polling({"m", "n"}, {0, 8}, {"a", "b"});
  EXPECT_EQ(p.by_rank, (std::vector<Polling>{Polling::Yield, Polling::Spin}));
  EXPECT_EQ(p.summary, "mixed");
  EXPECT_EQ(p.reason, "1 rank, core count unknown on the most crowded machine, a's");
  EXPECT_STREQ(polling_name(Polling::Spin), "spin");
  EXPECT_STREQ(polling_name(Polling::Yield), "yield");
}

TEST(Polling, TheUsersChoiceHoldsForEveryRank) {
  const PollingPlan p = forced_polling(Polling::Yield, 3);
  EXPECT_EQ(p.by_rank, std::vector<Polling>(3, Polling::Yield));
  EXPECT_EQ(p.summary, "yield");
  EXPECT_EQ(p.reason, "--polling");
}

}  // namespace
}  // namespace collbench::ofi
