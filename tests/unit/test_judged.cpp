// The network bound on bus bandwidth, and IMPLAUSIBLE_VALUES built on it.
#include <gtest/gtest.h>

#include "reports/run/judged.h"

namespace collbench::report {
namespace {

// 2 nodes of p5.48xlarge: 16 ranks, 3200 Gbit/s = 400 GB/s of EFA per node.
const NetworkLimit kTwoP5{16, 2, 400, "p5.48xlarge"};

TEST(NetworkBound, AllReduceAcrossTwoNodesIsBoundByTheNodesNetwork) {
  // Each node receives 2 S (N-1)/N = S: S/t <= 400 GB/s, busbw = 2 * 15/16 * S/t <= 750.
  EXPECT_DOUBLE_EQ(*network_busbw_bound("all_reduce", kTwoP5), 750);
  EXPECT_DOUBLE_EQ(*network_busbw_bound("all_gather", kTwoP5), 750);
  // More nodes: the traffic per node tends to 2 S, the bound to B.
  EXPECT_NEAR(*network_busbw_bound("all_reduce", {512, 64, 400, "p5.48xlarge"}), 400 * 64.0 / 63 * 511 / 512, 1e-9);
}

TEST(NetworkBound, AllToAllCarriesLessThanAllReduce) {
  // g = 8 ranks per node send S * 8/16 each off the node: S/t <= 400 * 16 / 64, busbw <= 400 * 15 / 64.
  EXPECT_DOUBLE_EQ(*network_busbw_bound("all_to_all", kTwoP5), 400.0 * 15 / 64);
  EXPECT_DOUBLE_EQ(*network_busbw_bound("broadcast", kTwoP5), 400);
}

TEST(NetworkBound, NoBoundWithinOneNodeOrForAnUnknownOp) {
  EXPECT_FALSE(network_busbw_bound("all_reduce", {8, 1, 400, "p5.48xlarge"}));
  EXPECT_FALSE(network_busbw_bound("all_reduce", {16, 2, 0, "p5.48xlarge"}));
  EXPECT_FALSE(network_busbw_bound("unknown", kTwoP5));
}

CaseResult world_case(const std::string& op, double busbw) {
  CaseResult c;
  c.op = op;
  c.placement = Placement::OutOfPlace;
  c.bytes = 1ull << 30;
  c.time_us.mean = 1000;
  c.algbw_gbs = busbw / 1.875;
  c.busbw_gbs = busbw;
  return c;
}

TEST(ImplausibleValues, BusbwAboveTheNetworkBoundIsNotTrusted) {
  // 805 GB/s of all_reduce busbw on 2x p5: more than 2 x 3200 Gbit/s of EFA can carry.
  const auto f = implausible_values_finding({world_case("all_reduce", 805)}, kTwoP5);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "IMPLAUSIBLE_VALUES");
  EXPECT_NE(f->message.find("busbw 805.0 GB/s, above the 750 GB/s that 2 nodes of p5.48xlarge"), std::string::npos)
      << f->message;
  // 480 GB/s (published 2-node p5 figures are about that) stays trusted; within the 5% rounding too.
  EXPECT_FALSE(implausible_values_finding({world_case("all_reduce", 480)}, kTwoP5));
  EXPECT_FALSE(implausible_values_finding({world_case("all_reduce", 780)}, kTwoP5));
  // Without the network's limit the same value is not judged, and a node-scope case never is.
  EXPECT_FALSE(implausible_values_finding({world_case("all_reduce", 805)}));
  CaseResult node = world_case("all_reduce", 805);
  node.group.scope = Scope::Node;
  EXPECT_FALSE(implausible_values_finding({node}, kTwoP5));
}

}  // namespace
}  // namespace collbench::report
