// EFA hardware counters: reading a sysfs tree, the deltas (a counter that went back is a reset, not
// a negative delta), the document's `counters`, the findings, and the link to bandwidth findings.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "launcher/probes/efa_counters.h"
#include "reports/core/references.h"
#include "reports/counters/counter_verdicts.h"
#include "reports/counters/efa_counters.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

CounterSet port1(std::map<std::string, std::uint64_t> values, std::string device = "efa0") {
  return {std::move(device), 1, std::move(values)};
}

// Two hosts with one device each; node2's deltas are `node2`.
CounterReport two_nodes(std::map<std::string, std::uint64_t> node1, std::map<std::string, std::uint64_t> node2) {
  CounterReport r;
  r.hosts = {"node1", "node2"};
  r.ranks = {{"node1", {0, 1}}, {"node2", {2, 3}}};
  r.devices = 2;
  r.entries = {{"node1", "efa0", 1, std::move(node1), {}}, {"node2", "efa0", 1, std::move(node2), {}}};
  return r;
}

TEST(EfaCounters, TableSaysWhichCountersAreErrors) {
  for (const char* e : {"retrans_pkts", "retrans_timeout_events", "impaired_remote_conn_events",
                        "unresponsive_remote_events", "rdma_read_wr_err", "rdma_write_wr_err", "rx_drops"})
    EXPECT_EQ(counter_kind(e), CounterKind::Error) << e;
  for (const char* t : {"tx_bytes", "tx_pkts", "rx_pkts", "send_bytes", "rdma_read_bytes", "rdma_read_resp_bytes"})
    EXPECT_EQ(counter_kind(t), CounterKind::Traffic) << t;
  EXPECT_EQ(counter_kind("some_future_counter"), CounterKind::Traffic);  // reported, never judged
}

TEST(EfaCounters, DeltasPerDirectoryAndResetsInsteadOfNegativeDeltas) {
  const CounterSnapshot before{port1({{"tx_pkts", 100}, {"retrans_pkts", 5}, {"rx_drops", 9}}),
                               {"efa0", 0, {{"cmds_err", 1}}}};
  const CounterSnapshot after{port1({{"tx_pkts", 1100}, {"retrans_pkts", 5}, {"rx_drops", 2}, {"new_one", 7}}),
                              {"efa0", 0, {{"cmds_err", 1}}},
                              port1({{"tx_pkts", 1}}, "efa1")};  // not there before: no deltas
  const auto d = counter_deltas("node1", before, after);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].port, 0);
  EXPECT_EQ(d[0].deltas.at("cmds_err"), 0u);
  EXPECT_EQ(d[1].host, "node1");
  EXPECT_EQ(d[1].port, 1);
  EXPECT_EQ(d[1].deltas.at("tx_pkts"), 1000u);
  EXPECT_EQ(d[1].deltas.at("retrans_pkts"), 0u);
  EXPECT_EQ(d[1].deltas.count("rx_drops"), 0u);
  EXPECT_EQ(d[1].reset, std::vector<std::string>{"rx_drops"});
  EXPECT_EQ(d[1].deltas.count("new_one"), 0u);  // no earlier value to subtract
}

TEST(EfaCounters, GatheredPartsMakeTheDocumentsCounters) {
  const auto part = node_counters_json("node2", 1, {{"node2", "efa0", 1, {{"retrans_pkts", 12}}, {"rx_drops"}}}).dump();
  const CounterReport r = merge_node_counters({part, "", ""}, {"node1", "node2", "node2"});
  EXPECT_EQ(r.devices, 1);
  EXPECT_EQ(r.hosts, std::vector<std::string>{"node2"});
  EXPECT_EQ(r.ranks.at("node2"), (std::vector<int>{1, 2}));
  const nlohmann::json j = counters_json(r);
  EXPECT_EQ(j["devices"], 1);
  ASSERT_EQ(j["entries"].size(), 1u);
  EXPECT_EQ(j["entries"][0]["host"], "node2");
  EXPECT_EQ(j["entries"][0]["device"], "efa0");
  EXPECT_EQ(j["entries"][0]["port"], 1);
  EXPECT_EQ(j["entries"][0]["deltas"]["retrans_pkts"], 12);
  EXPECT_EQ(j["entries"][0]["reset"], nlohmann::json::array({"rx_drops"}));

  const nlohmann::json device_wide = counters_json({{"n"}, {}, 1, {{"n", "efa0", 0, {}, {}}}});
  EXPECT_TRUE(device_wide["entries"][0]["port"].is_null());

  // No EFA device anywhere: the document says so and nothing more.
  const CounterReport none = merge_node_counters({node_counters_json("node1", 0, {}).dump()}, {"node1"});
  EXPECT_EQ(counters_json(none), (nlohmann::json{{"devices", 0}}));
}

TEST(EfaCounterVerdicts, RisingErrorCountersNameTheNode) {
  const auto f = counter_findings(two_nodes({{"retrans_pkts", 0}, {"tx_pkts", 900}},
                                            {{"retrans_pkts", 120}, {"tx_pkts", 1000}, {"impaired_remote_conn_events", 3}}),
                                  "the world sweep");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "EFA_ERRORS_ROSE");
  EXPECT_EQ(f[0].tag, Tag::Warn);
  EXPECT_EQ(f[0].priority, Priority::P1);
  EXPECT_EQ(f[0].reference, ref::kEfaConfig);
  EXPECT_EQ(f[0].subject, Subject::node("node2", {2, 3}));
  EXPECT_EQ(f[0].message.rfind("node2: ", 0), 0u) << f[0].message;
  EXPECT_NE(f[0].message.find("efa0 retrans_pkts +120 (12% of 1000 tx_pkts)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("efa0 impaired_remote_conn_events +3"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("during the world sweep"), std::string::npos);
  EXPECT_EQ(f[0].message.find("node1"), std::string::npos);
}

TEST(EfaCounterVerdicts, OneFindingPerNodeWhoseCountersRose) {
  const auto f = counter_findings(two_nodes({{"rdma_read_wr_err", 1}}, {{"unresponsive_remote_events", 2}}), "x");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].subject.hosts, std::vector<std::string>{"node1"});
  EXPECT_EQ(f[1].subject.hosts, std::vector<std::string>{"node2"});
}

TEST(EfaCounterVerdicts, UnchangedOrTrafficOnlyIsAPass) {
  for (const auto& r : {two_nodes({{"retrans_pkts", 0}}, {{"retrans_pkts", 0}}),
                        two_nodes({{"tx_bytes", 1u << 30}, {"rx_pkts", 5000}}, {{"send_bytes", 77}})}) {
    const auto f = counter_findings(r, "the hunt");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].code, "EFA_COUNTERS_OK");
    EXPECT_EQ(f[0].tag, Tag::Pass);
    EXPECT_EQ(f[0].subject, Subject::world());
    EXPECT_NE(f[0].message.find("2 node(s), 2 device(s)"), std::string::npos) << f[0].message;
  }
}

TEST(EfaCounterVerdicts, AResetIsNotARiseAndIsSaid) {
  CounterReport r = two_nodes({{"retrans_pkts", 0}}, {});
  r.entries[1].reset = {"retrans_pkts"};
  const auto f = counter_findings(r, "the sweep");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "EFA_COUNTERS_OK");
  EXPECT_NE(f[0].message.find("not judged: node2 efa0 retrans_pkts"), std::string::npos) << f[0].message;
}

TEST(EfaCounterVerdicts, NoEfaDeviceClaimsNothing) {
  CounterReport r;
  r.hosts = {"node1", "node2"};
  EXPECT_TRUE(counter_findings(r, "the sweep").empty());
  std::vector<Finding> findings{{"STRAGGLER_NODE", Tag::Fail, Priority::P1, "node2 is slow", "", Subject::node("node2")}};
  add_counter_findings(findings, r, "the sweep");
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message, "node2 is slow");
}

TEST(EfaCounterEvidence, BandwidthFindingOnTheSameHostGetsTheCountersAndViceVersa) {
  std::vector<Finding> findings{
      {"STRAGGLER_NODE", Tag::Fail, Priority::P1, "node2: slower than its partners", "", Subject::node("node2", {2, 3})},
      {"SLOW_LINK", Tag::Fail, Priority::P1, "node1<->node3", "", Subject::link("node1", "node3")},
      {"BUSBW_OK", Tag::Pass, Priority::None, "node2 fine", "", Subject::node("node2")},
      {"MEMLOCK_LOW", Tag::Fail, Priority::P0, "node2 memlock", "", Subject::node("node2")}};
  add_counter_findings(findings, two_nodes({}, {{"retrans_pkts", 40}}), "the hunt");
  ASSERT_EQ(findings.size(), 5u);
  EXPECT_NE(findings[0].message.find("; EFA error counters on node2 rose during the same phase: efa0 retrans_pkts +40"),
            std::string::npos)
      << findings[0].message;
  EXPECT_EQ(findings[1].message, "node1<->node3");  // names neither end whose counters rose
  EXPECT_EQ(findings[2].message, "node2 fine");     // a pass accuses nobody
  EXPECT_EQ(findings[3].message, "node2 memlock");  // not a bandwidth finding
  const auto counters = find(findings, "EFA_ERRORS_ROSE");
  ASSERT_TRUE(counters);
  EXPECT_NE(counters->message.find("; node2 is also named by STRAGGLER_NODE"), std::string::npos) << counters->message;
}

TEST(EfaCounterEvidence, ALinkWithOneEndWhoseCountersRose) {
  std::vector<Finding> findings{
      {"FABRIC_SLOW_LINK_BANDWIDTH", Tag::Fail, Priority::P1, "node1<->node2 slow", "", Subject::link("node1", "node2")}};
  add_counter_findings(findings, two_nodes({{"impaired_remote_conn_events", 1}}, {}), "the fabric rounds");
  EXPECT_NE(findings[0].message.find("EFA error counters on node1 rose"), std::string::npos) << findings[0].message;
  EXPECT_NE(findings[1].message.find("node1 is also named by FABRIC_SLOW_LINK_BANDWIDTH"), std::string::npos);
}

// A fake sysfs tree, as COLLBENCH_SYSFS_ROOT points at one.
class EfaCounterTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cb-efa-unit-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ib_ = root_ / "sys/class/infiniband";
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
  }
  fs::path root_, ib_;
};

TEST_F(EfaCounterTree, ReadsPortAndDeviceCountersOfEfaDevicesOnly) {
  write(ib_ / "efa0/ports/1/hw_counters/retrans_pkts", "17\n");
  write(ib_ / "efa0/ports/1/hw_counters/tx_pkts", "1000\n");
  write(ib_ / "efa0/ports/1/hw_counters/lifespan", "10\n");     // the cache's lifetime, not a counter
  write(ib_ / "efa0/ports/1/hw_counters/garbage", "n/a\n");     // not a number
  write(ib_ / "efa0/hw_counters/cmds_err", "2\n");
  // Named like a real EFA device, known by its driver link.
  write(ib_ / "rdmap0s31/ports/1/hw_counters/rx_drops", "4\n");
  write(root_ / "sys/bus/pci/drivers/efa/.keep", "");
  fs::create_directories(ib_ / "rdmap0s31/device");
  fs::create_directory_symlink(root_ / "sys/bus/pci/drivers/efa", ib_ / "rdmap0s31/device/driver");
  write(ib_ / "mlx5_0/ports/1/hw_counters/rx_drops", "9\n");  // not EFA

  CounterReadOptions o;
  o.sysfs_root = root_.string();
  EXPECT_EQ(o.infiniband_dir(), ib_.string());
  CounterSnapshot s = read_efa_counters(o.infiniband_dir());
  std::sort(s.begin(), s.end(), [](const auto& a, const auto& b) { return std::tie(a.device, a.port) < std::tie(b.device, b.port); });
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].device, "efa0");
  EXPECT_EQ(s[0].port, 0);
  EXPECT_EQ(s[0].values, (std::map<std::string, std::uint64_t>{{"cmds_err", 2}}));
  EXPECT_EQ(s[1].port, 1);
  EXPECT_EQ(s[1].values, (std::map<std::string, std::uint64_t>{{"retrans_pkts", 17}, {"tx_pkts", 1000}}));
  EXPECT_EQ(s[2].device, "rdmap0s31");
  EXPECT_EQ(s[2].values.at("rx_drops"), 4u);
}

TEST_F(EfaCounterTree, NoTreeIsNoDevices) {
  EXPECT_TRUE(read_efa_counters((root_ / "nowhere").string()).empty());
  write(ib_ / "mlx5_0/ports/1/hw_counters/rx_drops", "9\n");
  EXPECT_TRUE(read_efa_counters(ib_.string()).empty());
}

}  // namespace
}  // namespace collbench::report
