// EFA hardware counters end to end: the real binary under mpirun (one host, two ranks) on a fake
// sysfs tree (COLLBENCH_SYSFS_ROOT). Which node, among several, is named is the fake cluster's
// test (tests/fakecluster/counters.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e/collbench_process.h"

namespace collbench::e2e {
namespace {

constexpr const char* kRun = " run --backend mpi --ops all_reduce -b 1M -e 4M -n 20 --no-progress --no-color";

class Counters : public CollbenchTest {
 protected:
  // A tree at dir_/sys with one device of `device`'s name, its port 1 counters at 1000.
  fs::path tree(const std::string& device) {
    const fs::path c = dir_ / "sys/class/infiniband" / device / "ports/1/hw_counters";
    fs::create_directories(c);
    for (const char* name : {"tx_pkts", "rx_pkts", "retrans_pkts", "impaired_remote_conn_events", "rx_drops"})
      std::ofstream(c / name) << "1000\n";
    return c;
  }
  // collbench run on the tree; with `rising`, a loop raises retrans_pkts every 20 ms meanwhile. The loop
  // is asked to stop and waited for: killed, its `mv` could outlive it and race the folder's removal.
  Result run(const fs::path& rising = {}) {
    const std::string json = (dir_ / "run.json").string();
    const std::string cmd = "env COLLBENCH_SYSFS_ROOT=" + dir_.string() + " " + std::string(COLLBENCH_MPIEXEC) +
                            " -np 2 " + COLLBENCH_BIN + kRun + " --json " + json;
    if (rising.empty()) return shell(cmd);
    const fs::path script = dir_ / "rising.sh";
    std::ofstream(script) << "v=1000\n"
                          << "while [ ! -e " << (dir_ / "stop").string() << " ]; do v=$((v + 7)); echo $v >"
                          << (dir_ / "next").string() << " && mv -f " << (dir_ / "next").string() << " "
                          << (rising / "retrans_pkts").string() << "; sleep 0.02; done &\n"
                          << "bump=$!\n" << cmd << "\nrc=$?\ntouch " << (dir_ / "stop").string()
                          << "\nwait $bump\nexit $rc\n";
    return shell("sh " + script.string());
  }
  nlohmann::json document() { return nlohmann::json::parse(slurp(dir_ / "run.json")); }
  std::string host() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
  }
};

TEST_F(Counters, RisingDuringTheRunIsAWarningOnThisNode) {
  const Result r = run(tree("efa0"));
  ASSERT_TRUE(r.code == 0 || r.code == 3) << describe(r);
  EXPECT_NE(r.out.find("[WARN] EFA_ERRORS_ROSE (P1): " + host() + ": EFA error counters rose during the world "
                       "sweep: efa0 retrans_pkts +"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(r.out.find("EFA_COUNTERS_OK"), std::string::npos) << describe(r);
  const nlohmann::json doc = document();
  ASSERT_EQ(doc["counters"]["devices"], 1) << doc["counters"];
  ASSERT_EQ(doc["counters"]["entries"].size(), 1u);  // one reader per host
  const auto& e = doc["counters"]["entries"][0];
  EXPECT_EQ(e["host"], host());
  EXPECT_EQ(e["device"], "efa0");
  EXPECT_EQ(e["port"], 1);
  EXPECT_GT(e["deltas"]["retrans_pkts"].get<int>(), 0);
  EXPECT_EQ(e["deltas"]["impaired_remote_conn_events"], 0);
  bool found = false;
  for (const auto& f : doc["findings"])
    if (f["code"] == "EFA_ERRORS_ROSE") {
      found = true;
      EXPECT_EQ(f["subject"]["kind"], "node");
      EXPECT_EQ(f["subject"]["hosts"], nlohmann::json::array({host()}));
      EXPECT_EQ(f["subject"]["ranks"], nlohmann::json::array({0, 1}));
    }
  EXPECT_TRUE(found);
}

TEST_F(Counters, UnchangedIsAPass) {
  tree("efa0");
  const Result r = run();
  ASSERT_TRUE(r.code == 0 || r.code == 3) << describe(r);
  EXPECT_NE(r.out.find("[PASS] EFA_COUNTERS_OK: no EFA error counter rose during the world sweep on 1 node(s), 1 "
                       "device(s)"),
            std::string::npos)
      << describe(r);
  EXPECT_EQ(r.out.find("EFA_ERRORS_ROSE"), std::string::npos) << describe(r);
  EXPECT_EQ(document()["counters"]["entries"][0]["deltas"]["retrans_pkts"], 0);
}

TEST_F(Counters, NoEfaDeviceClaimsNothing) {
  tree("mlx5_0");
  const Result r = run();
  ASSERT_TRUE(r.code == 0 || r.code == 3) << describe(r);
  EXPECT_EQ(r.out.find("EFA_COUNTERS_OK"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("EFA_ERRORS_ROSE"), std::string::npos) << describe(r);
  EXPECT_EQ(document()["counters"], (nlohmann::json{{"devices", 0}}));
}

}  // namespace
}  // namespace collbench::e2e
