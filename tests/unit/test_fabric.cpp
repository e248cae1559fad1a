// collbench fabric without libfabric or MPI: the result maths, the provider choice, the lanes, the
// profile checks, the attribution findings and the command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "bench/errors.h"
#include "bench/ofi/lanes.h"
#include "bench/ofi/provider_choice.h"
#include "launcher/commands/command_line.h"
#include "reports/fabric/fabric_math.h"
#include "reports/core/stats.h"
#include "reports/fabric/fabric_verdicts.h"
#include "reports/pairs/busy_hosts.h"

namespace collbench {
namespace {

using report::Finding;

bool has(const std::vector<Finding>& f, const std::string& code) {
  return std::any_of(f.begin(), f.end(), [&](const Finding& x) { return x.code == code; });
}

const Finding& get(const std::vector<Finding>& f, const std::string& code) {
  return *std::find_if(f.begin(), f.end(), [&](const Finding& x) { return x.code == code; });
}

}  // namespace

// ---- result maths ----

TEST(FabricMath, LatencyPointIsInMicrosecondsWithNearestRankP99) {
  std::vector<double> s;
  for (int i = 1; i <= 200; ++i) s.push_back(i * 1e-6);  // 1..200 us
  const auto p = report::latency_point(8, s);
  EXPECT_EQ(p.bytes, 8u);
  EXPECT_EQ(p.samples, 200u);
  EXPECT_DOUBLE_EQ(p.median_us, 100.5);
  EXPECT_DOUBLE_EQ(p.p99_us, 198);  // the 198th of 200 sorted samples
  EXPECT_DOUBLE_EQ(p.min_us, 1);
  EXPECT_NEAR(p.mean_us, 100.5, 1e-9);
  ASSERT_EQ(p.samples_us.size(), 200u);
  EXPECT_NEAR(p.samples_us[9], 10, 1e-9);
}

TEST(FabricMath, OneOutlierMovesTheP99NotTheMedian) {
  std::vector<double> s(99, 10e-6);
  s.push_back(5e-3);
  const auto p = report::latency_point(64, s);
  EXPECT_NEAR(p.median_us, 10, 1e-9);
  EXPECT_NEAR(p.p99_us, 10, 1e-9);  // nearest rank: 99 of 100 samples are at or below 10 us
  s.push_back(5e-3);
  EXPECT_NEAR(report::latency_point(64, s).p99_us, 5000, 1e-6);
}

TEST(FabricMath, WindowBandwidthIsBytesTimesWindowOverTime) {
  EXPECT_DOUBLE_EQ(report::window_gbs(1 << 20, 16, 0.01), 16.0 * (1 << 20) / 0.01 / 1e9);
  EXPECT_DOUBLE_EQ(report::window_gbs(1000, 1, 1e-6), 1.0);
  EXPECT_EQ(report::window_gbs(1000, 4, 0), 0);
  const auto uni = report::stream_gbs(1000, 10, std::vector<double>{1e-5, 2e-5});
  EXPECT_DOUBLE_EQ(uni[0], 1.0);
  EXPECT_DOUBLE_EQ(uni[1], 0.5);
  // Both directions at once: twice the bytes in the same time.
  EXPECT_DOUBLE_EQ(report::stream_gbs(1000, 10, std::vector<double>{1e-5}, 2)[0], 2.0);
}

TEST(FabricMath, LatencyRateIsHigherForLowerLatency) {
  EXPECT_DOUBLE_EQ(report::latency_rate(10), 100);
  EXPECT_DOUBLE_EQ(report::latency_rate(1000), 1);
  EXPECT_EQ(report::latency_rate(0), 0);
  EXPECT_GT(report::latency_rate(9), report::latency_rate(10));
}

// ---- provider choice ----

TEST(FabricProvider, CoreNamesAndClasses) {
  EXPECT_EQ(ofi::core_provider("tcp;ofi_rxm"), "tcp");
  EXPECT_EQ(ofi::core_provider("efa"), "efa");
  for (const char* p : {"tcp", "sockets", "udp", "net"}) EXPECT_TRUE(ofi::is_ip_provider(p)) << p;
  for (const char* p : {"efa", "shm", "verbs"}) EXPECT_FALSE(ofi::is_ip_provider(p)) << p;
  EXPECT_TRUE(ofi::is_host_local("shm"));
  EXPECT_FALSE(ofi::is_host_local("tcp"));
}

TEST(FabricProvider, AutoTakesEfaWhereverLibfabricListsIt) {
  const auto c = ofi::choose_provider("auto", {"shm", "tcp;ofi_rxm", "efa"}, {"shm", "tcp", "efa"});
  EXPECT_EQ(c.core, "efa");
  EXPECT_FALSE(c.fell_back);
}

TEST(FabricProvider, AutoWithoutEfaFallsBackPastShmAndSaysSo) {
  const auto c = ofi::choose_provider("auto", {"shm", "tcp;ofi_rxm", "sockets"}, {"shm", "tcp", "sockets"});
  EXPECT_EQ(c.core, "tcp");
  EXPECT_TRUE(c.fell_back);
  EXPECT_NE(c.reason.find("no efa"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("tcp"), std::string::npos) << c.reason;
  EXPECT_THROW(ofi::choose_provider("auto", {"shm"}, {"shm"}), RunError);
}

TEST(FabricProvider, NamedProviderByCoreOrFullName) {
  EXPECT_EQ(ofi::choose_provider("tcp", {"tcp;ofi_rxm"}, {"tcp"}).core, "tcp");
  EXPECT_EQ(ofi::choose_provider("tcp;ofi_rxm", {"tcp;ofi_rxm"}, {"tcp"}).core, "tcp");
}

TEST(FabricProvider, UnknownNameListsTheRdmProviders) {
  try {
    ofi::choose_provider("efa", {"tcp;ofi_rxm", "udp;ofi_rxd", "shm"}, {"tcp", "udp", "shm"});
    FAIL() << "accepted an absent provider";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("--provider efa"), std::string::npos) << m;
    EXPECT_NE(m.find("tcp, udp, shm"), std::string::npos) << m;
  }
}

TEST(FabricProvider, ProviderWithoutRdmIsRefusedAsSuch) {
  try {
    ofi::choose_provider("udp", {"shm", "sockets"}, {"udp", "shm", "sockets"});
    FAIL() << "accepted a provider without RDM";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("no RDM endpoint"), std::string::npos) << e.what();
  }
}

TEST(FabricProvider, MessagesBeyondTheProviderLimitAreBadInput) {
  EXPECT_NO_THROW(ofi::check_message_size(8u << 20, 8u << 20, "efa"));
  try {
    ofi::check_message_size((8u << 20) + 1, 8u << 20, "efa");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-e"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("8388608"), std::string::npos) << e.what();
  }
}

// ---- lanes ----

TEST(FabricLanes, OneNodeMakesEachRankAUnit) {
  const auto u = ofi::fabric_units({{"vm", {0, 1, 2}}});
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(u[1].name, "vm/r1");
  EXPECT_EQ(u[1].ranks, std::vector<int>{1});
  const auto nodes = ofi::fabric_units({{"a", {0, 1}}, {"b", {2, 3}}});
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "a");
}

TEST(FabricLanes, LocalRankIWithLocalRankIAndUnevenNodesLeaveTheExtraOut) {
  const std::vector<ofi::Unit> units{{"a", {0, 1}}, {"b", {2, 3}}, {"c", {4}}, {"d", {5, 6}}};
  const Schedule s{Round{{{0, 1}, {2, 3}}}};
  const auto lanes = ofi::round_lanes(s, 0, units);
  ASSERT_EQ(lanes.size(), 3u);  // a-b: 2 lanes; c-d: 1 (c has one rank)
  EXPECT_EQ(lanes[1].rank_a, 1);
  EXPECT_EQ(lanes[1].rank_b, 3);
  EXPECT_EQ(lanes[2].rank_a, 4);
  EXPECT_EQ(lanes[2].rank_b, 5);
  EXPECT_EQ(ofi::lane_of(3, s, 0, units)->rank_a, 1);
  EXPECT_FALSE(ofi::lane_of(6, s, 0, units).has_value());
  EXPECT_TRUE(ofi::round_lanes(s, 1, units).empty());
}

// ---- profile checks ----

namespace {

report::FabricProvider provider(const std::string& name, const std::string& core, bool over_ip) {
  report::FabricProvider p;
  p.name = name, p.core = core, p.over_ip = over_ip, p.reason = "test";
  return p;
}

report::HardwareProfile efa_profile(int devices) { return {8, "H100 80GB", devices, 3200, "test"}; }

}  // namespace

TEST(FabricProfile, TcpOnAnEfaInstanceIsTcpFallback) {
  const auto f = report::fabric_environment_findings(provider("tcp;ofi_rxm", "tcp", true), "p5.48xlarge",
                                                     efa_profile(32), {{"n0", 32}, {"n1", 32}});
  ASSERT_TRUE(has(f, "EFA_TCP_FALLBACK"));
  EXPECT_EQ(get(f, "EFA_TCP_FALLBACK").tag, report::Tag::Fail);
  EXPECT_EQ(get(f, "EFA_TCP_FALLBACK").priority, report::Priority::P0);
  EXPECT_NE(get(f, "EFA_TCP_FALLBACK").reference.find("13 EFA TCP Fallback"), std::string::npos);
  EXPECT_TRUE(has(f, "EFA_DEVICES_OK"));
  EXPECT_TRUE(has(f, "FABRIC_THRESHOLDS_NONE"));
}

TEST(FabricProfile, EfaOnAnEfaInstancePassesAndMissingDevicesAreNamed) {
  const auto f = report::fabric_environment_findings(provider("efa", "efa", false), "p5.48xlarge", efa_profile(32),
                                                     {{"n0", 32}, {"n1", 31}, {"n2", 0}});
  EXPECT_TRUE(has(f, "EFA_PROVIDER_OK"));
  EXPECT_FALSE(has(f, "EFA_TCP_FALLBACK"));
  ASSERT_TRUE(has(f, "EFA_DEVICES_MISSING"));
  const std::string m = get(f, "EFA_DEVICES_MISSING").message;
  EXPECT_NE(m.find("2 of 3 nodes"), std::string::npos) << m;
  EXPECT_NE(m.find("n1 (31)"), std::string::npos) << m;
  EXPECT_NE(m.find("n2 (0)"), std::string::npos) << m;
  EXPECT_EQ(m.find("n0"), std::string::npos) << m;
  EXPECT_NE(get(f, "EFA_DEVICES_MISSING").reference.find("6 EFA Configuration"), std::string::npos);
}

TEST(FabricProfile, NoProfileOrNoEfaJudgesNoProvider) {
  const auto unknown = report::fabric_environment_findings(provider("tcp;ofi_rxm", "tcp", true), "", std::nullopt, {});
  EXPECT_TRUE(has(unknown, "UNKNOWN_INSTANCE"));
  EXPECT_FALSE(has(unknown, "EFA_TCP_FALLBACK"));
  const auto none = report::fabric_environment_findings(provider("tcp;ofi_rxm", "tcp", true), "g5.xlarge",
                                                        efa_profile(0), {{"n0", 0}});
  EXPECT_FALSE(has(none, "EFA_TCP_FALLBACK"));
  EXPECT_FALSE(has(none, "EFA_DEVICES_MISSING"));
  EXPECT_EQ(report::exit_code_for(none), 0);
}

// ---- attribution ----

namespace {

// n units; every pair measured with `lat_us(a, b)` and `gbs(a, b)` (plus a little spread).
report::FabricRun synthetic_run(int n, double (*lat_us)(int, int), double (*gbs)(int, int)) {
  report::FabricRun run;
  run.latency_bytes = 8;
  run.bandwidth_bytes = 1 << 20;
  for (int i = 0; i < n; ++i) run.units.push_back({"node" + std::to_string(i), {i}});
  int round = 0;
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      report::FabricLane lane{0, a, b, {}, {}};
      std::vector<double> s;
      for (int k = 0; k < 50; ++k) s.push_back(lat_us(a, b) * (1 + 0.01 * (k % 5)) * 1e-6);
      lane.latency.push_back(report::latency_point(8, s));
      report::BandwidthPoint bw;
      bw.bytes = 1 << 20;
      for (int k = 0; k < 20; ++k) bw.uni_gbs.push_back(gbs(a, b) * (1 - 0.01 * (k % 3)));
      lane.bandwidth.push_back(bw);
      run.pairs.push_back({round++, a, b, {lane}});
    }
  return run;
}

double lat_node2_slow(int a, int b) { return a == 2 || b == 2 ? 500 : 50; }
double bw_flat(int, int) { return 10; }
double lat_flat(int, int) { return 50; }
double bw_node1_slow(int a, int b) { return a == 1 || b == 1 ? 2 : 10; }

}  // namespace

TEST(FabricAttribution, HighLatencyNodeIsNamedOnLatencyOnly) {
  const auto run = synthetic_run(4, lat_node2_slow, bw_flat);
  const auto lat = report::attribute(report::fabric_pair_samples(run, report::FabricMeasure::Latency), 4,
                                     report::fabric_attribution_options(report::FabricMeasure::Latency));
  const auto f = report::fabric_attribution_findings(lat, run, report::FabricMeasure::Latency);
  ASSERT_TRUE(has(f, "FABRIC_SLOW_NODE_LATENCY"));
  const std::string m = get(f, "FABRIC_SLOW_NODE_LATENCY").message;
  EXPECT_EQ(m.rfind("node2:", 0), 0u) << m;
  EXPECT_NE(m.find("us"), std::string::npos) << m;
  EXPECT_EQ(std::count_if(f.begin(), f.end(), [](const Finding& x) { return x.tag == report::Tag::Fail; }), 1);
  const auto bw = report::attribute(report::fabric_pair_samples(run, report::FabricMeasure::Bandwidth), 4);
  EXPECT_TRUE(has(report::fabric_attribution_findings(bw, run, report::FabricMeasure::Bandwidth), "FABRIC_PAIRS_OK"));
}

TEST(FabricSkippedSizes, StarvedLaneBringsTheJudgedBandwidthSizeDownAndIsListed) {
  auto run = synthetic_run(3, lat_flat, bw_flat);
  EXPECT_EQ(report::common_bandwidth_bytes(run), 1u << 20);
  EXPECT_FALSE(report::fabric_skipped_sizes_finding(run, 1 << 20));
  // Every lane also measured 256 KiB; node0<->node2 stopped there for lack of time.
  for (auto& pair : run.pairs) {
    report::BandwidthPoint small;
    small.bytes = 256 << 10;
    small.uni_gbs = {5, 5, 5};
    pair.lanes[0].bandwidth.insert(pair.lanes[0].bandwidth.begin(), small);
    if (pair.a == 0 && pair.b == 2) {
      pair.lanes[0].bandwidth.pop_back();
      pair.lanes[0].bandwidth_starved_at = 256 << 10;
    }
  }
  EXPECT_EQ(report::common_bandwidth_bytes(run), 256u << 10);
  run.bandwidth_bytes = report::common_bandwidth_bytes(run);
  const auto f = report::fabric_skipped_sizes_finding(run, 1 << 20);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "FABRIC_SIZES_SKIPPED");
  EXPECT_EQ(f->tag, report::Tag::Warn);
  EXPECT_NE(f->message.find("node0<->node2 (bandwidth after 256 KiB)"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("judged at 256 KiB instead of 1 MiB"), std::string::npos) << f->message;
  EXPECT_EQ(f->message.find("node0<->node1"), std::string::npos) << f->message;
}

TEST(FabricAttribution, LowBandwidthNodeIsNamedInGigabytesPerSecond) {
  const auto run = synthetic_run(4, lat_flat, bw_node1_slow);
  const auto bw = report::attribute(report::fabric_pair_samples(run, report::FabricMeasure::Bandwidth), 4,
                                    report::fabric_attribution_options(report::FabricMeasure::Bandwidth));
  const auto f = report::fabric_attribution_findings(bw, run, report::FabricMeasure::Bandwidth);
  ASSERT_TRUE(has(f, "FABRIC_SLOW_NODE_BANDWIDTH"));
  const std::string m = get(f, "FABRIC_SLOW_NODE_BANDWIDTH").message;
  EXPECT_EQ(m.rfind("node1:", 0), 0u) << m;
  EXPECT_NE(m.find("GB/s"), std::string::npos) << m;
  EXPECT_NE(m.find("80% below"), std::string::npos) << m;
}

namespace {
double lat_link_1_2_slow(int a, int b) { return a == 1 && b == 2 ? 120 : 50; }
}  // namespace

// A busy host slows a pair by a few times on its own (reports/pairs/busy_hosts.h): 2.4x the latency
// names a link on quiet hosts only; 10x names a node either way.
TEST(FabricAttribution, OnBusyHostsOnlyAFarLargerGapAccuses) {
  const auto lat = report::FabricMeasure::Latency;
  const auto link_run = synthetic_run(5, lat_link_1_2_slow, bw_flat);
  const auto samples = report::fabric_pair_samples(link_run, lat);
  const auto quiet = report::attribute(samples, 5, report::fabric_attribution_options(lat));
  EXPECT_TRUE(has(report::fabric_attribution_findings(quiet, link_run, lat), "FABRIC_SLOW_LINK_LATENCY"));
  const auto busy = report::attribute(samples, 5, report::busy_host_rule(report::fabric_attribution_options(lat)));
  const auto f = report::fabric_attribution_findings(busy, link_run, lat);
  EXPECT_FALSE(has(f, "FABRIC_SLOW_LINK_LATENCY"));  // within what contention does; HOSTS_BUSY says so

  const auto node_run = synthetic_run(5, lat_node2_slow, bw_flat);
  const auto node_busy = report::attribute(report::fabric_pair_samples(node_run, lat), 5,
                                           report::busy_host_rule(report::fabric_attribution_options(lat)));
  EXPECT_TRUE(has(report::fabric_attribution_findings(node_busy, node_run, lat), "FABRIC_SLOW_NODE_LATENCY"));
}

TEST(FabricAttribution, LatencyRateRoundTripsThroughTheMatrix) {
  const auto run = synthetic_run(3, lat_flat, bw_flat);
  const auto samples = report::fabric_pair_samples(run, report::FabricMeasure::Latency);
  ASSERT_EQ(samples.size(), 3u);
  const auto a = report::attribute(samples, 3);
  // The median of rates is the rate of the median latency: here the median of the lower half of
  // the batch means of the pair's samples.
  const auto& us = run.pairs[0].lanes[0].latency[0].samples_us;
  const auto lower = report::lower_batch_means(us, 20);
  std::vector<double> sorted(lower.begin(), lower.end());
  EXPECT_NEAR(1000.0 / a.matrix[0][1], report::median(sorted), 1e-9);
  EXPECT_LT(report::median(sorted), report::median(std::vector<double>(us.begin(), us.end())));
}

// ---- command line ----

TEST(FabricCli, DefaultsAndParsedSizes) {
  const Command c = parse_command_line({"fabric", "--provider", "tcp", "-b", "64", "-e", "1M", "-o", "out.json"});
  ASSERT_EQ(c.kind, Command::Kind::Fabric);
  EXPECT_EQ(c.fabric.provider, "tcp");
  EXPECT_EQ(c.fabric.min_bytes, 64u);
  EXPECT_EQ(c.fabric.max_bytes, 1u << 20);
  EXPECT_EQ(c.fabric.output, "out.json");
  EXPECT_EQ(c.fabric.pattern, "auto");
  EXPECT_EQ(parse_command_line({"fabric"}).fabric.provider, "auto");
}

TEST(FabricCli, BadValuesNameTheOption) {
  for (const auto& [args, mention] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"fabric", "-b", "1M", "-e", "8"}, "-b"},
           {{"fabric", "--pattern", "ring"}, "--pattern"},
           {{"fabric", "--window", "0"}, "--window"},
           {{"fabric", "-e", "lots"}, "-e"},
           {{"fabric", "--timeout", "0"}, "--timeout"},
           {{"fabric", "--inject", "quiet:1"}, "--inject"}}) {
    try {
      parse_command_line(args);
      ADD_FAILURE() << "accepted " << args.back();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    }
  }
}

}  // namespace collbench

namespace collbench {

TEST(FabricMath, BatchMeansSliceInOrderAndKeepTheRemainder) {
  const std::vector<double> s{1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(report::batch_means(s, 3), (std::vector<double>{1.5, 3.5, 6}));
  EXPECT_EQ(report::batch_means(s, 10).size(), 7u);  // never more batches than samples
  EXPECT_TRUE(report::batch_means({}, 3).empty());
}

TEST(FabricMath, RareLongStallsRaiseEveryBatchMeanButNotTheMedianSample) {
  // Most messages pass at 20 us, every tenth waits 2 ms: the shape a token bucket gives.
  std::vector<double> s;
  for (int i = 0; i < 1000; ++i) s.push_back(i % 10 == 9 ? 2000 : 20);
  std::vector<double> sorted = s;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_DOUBLE_EQ(sorted[500], 20);
  for (double m : report::batch_means(s, 20)) EXPECT_DOUBLE_EQ(m, 218);
  // Spread evenly, the stalls hold up every batch, so the lower half of the batch means as well.
  for (double m : report::lower_batch_means(s, 20)) EXPECT_DOUBLE_EQ(m, 218);
}

TEST(FabricMath, StallsInSomeBatchesLeaveTheLowerHalfOfBatchMeans) {
  // A busy host: 20 us messages, and 2 ms scheduling stalls in 8 of 20 batches of 15.
  std::vector<double> s(300, 20.0);
  for (int b : {1, 4, 5, 9, 12, 13, 17, 19}) s[static_cast<std::size_t>(b * 15 + 7)] = 2000;
  const auto lower = report::lower_batch_means(s, 20);
  ASSERT_EQ(lower.size(), 10u);
  for (double m : lower) EXPECT_DOUBLE_EQ(m, 20);
  EXPECT_EQ(report::lower_batch_means(std::vector<double>{5, 1, 3}, 20), (std::vector<double>{1, 3}));
  EXPECT_TRUE(report::lower_batch_means({}, 20).empty());
}

}  // namespace collbench
