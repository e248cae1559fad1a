// `collbench fabric` under a real mpirun on libfabric's tcp provider, on loopback: 2 and 4 ranks,
// the JSON document, the profile check, bad input (exit 2, nothing written) and a peer that never
// answers (named, exit 1).
#include <chrono>
#include <cstdlib>
#include <set>
#include <nlohmann/json.hpp>

#include "collbench_process.h"

namespace collbench::e2e {
namespace {

using nlohmann::json;

class Fabric : public CollbenchTest {
 protected:
  // Small sizes and few iterations: these check the plumbing, not the numbers.
  static constexpr const char* kQuick = "fabric --provider tcp -b 8 -e 128K --latency-max 1K --bandwidth-min 64K "
                                        "-n 100 -w 20 --bw-iters 4 --window 4 --no-color";

  json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
  }
};

TEST_F(Fabric, TwoRanksMeasureOnePairOnTcp) {
  const fs::path out = dir_ / "fabric.json";
  const Result r = collbench(std::string(kQuick) + " -o " + out.string(), 2);
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("# Provider: tcp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libfabric: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[INFO] FABRIC_THRESHOLDS_NONE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Issues Found:"), std::string::npos) << r.out;
  // One pair cannot be pinned on either end: said once per measure, and more iterations would not help.
  EXPECT_NE(r.out.find("[INFO] FABRIC_ONE_PAIR: two ranks make one pair (one-way latency at"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("FABRIC_INCONCLUSIVE"), std::string::npos) << r.out;
  const json d = read_json(out);
  EXPECT_EQ(d["schema"], "collbench.fabric/1");
  EXPECT_EQ(d["provider"]["core"], "tcp");
  EXPECT_EQ(d["world"]["ranks"], 2);
  EXPECT_EQ(d["world"]["unit_kind"], "rank");
  ASSERT_EQ(d["pairs"].size(), 1u);
  const json& lane = d["pairs"][0]["lanes"][0];
  ASSERT_EQ(lane["latency"].size(), 8u);  // 8 B .. 1 KiB
  for (const auto& p : lane["latency"]) {
    EXPECT_GT(p["median_us"].get<double>(), 0);
    EXPECT_GE(p["p99_us"].get<double>(), p["median_us"].get<double>());
    EXPECT_EQ(p["samples"], 100);
  }
  ASSERT_EQ(lane["bandwidth"].size(), 2u);  // 64 KiB, 128 KiB
  for (const auto& p : lane["bandwidth"]) {
    EXPECT_GT(p["a_to_b_gbs"].get<double>(), 0);
    EXPECT_GT(p["b_to_a_gbs"].get<double>(), 0);
    EXPECT_GT(p["bidir_gbs"].get<double>(), 0);
    EXPECT_EQ(p["window"], 4);
  }
  EXPECT_EQ(d["verdict"]["exit_code"], 0);
  EXPECT_FALSE(fs::exists(out.string() + ".tmp"));
}

TEST_F(Fabric, FourRanksCoverEveryPairWithMatrices) {
  const fs::path out = dir_ / "fabric.json";
  const Result r = collbench(std::string(kQuick) + " --pattern pairwise -o " + out.string(), 4);
  // Four busy ranks on a small shared machine may look uneven: a verdict either way, never a failure to run.
  ASSERT_TRUE(r.code == 0 || r.code == 3) << describe(r);
  EXPECT_NE(r.out.find("# Latency matrix"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# Bandwidth matrix"), std::string::npos) << r.out;
  const json d = read_json(out);
  EXPECT_EQ(d["verdict"]["exit_code"], r.code);
  // How busy the host was around the rounds: it decides how large a gap accuses.
  ASSERT_TRUE(d["world"]["nodes"][0]["runnable_per_core"].is_number()) << d["world"]["nodes"].dump();
  EXPECT_GT(d["world"]["nodes"][0]["runnable_per_core"].get<double>(), 0);
  // Three pair rounds; a confirmation round may follow when a rank looked slow or its pairs disagreed.
  std::size_t pair_rounds = 0;
  for (const auto& round : d["schedule"]) pair_rounds += round["phase"] == "pairs";
  EXPECT_EQ(pair_rounds, 3u);
  std::set<std::pair<int, int>> seen;
  for (const auto& p : d["pairs"]) {
    if (p["round"].get<std::size_t>() >= pair_rounds) {
      EXPECT_EQ(d["schedule"][p["round"].get<std::size_t>()]["phase"], "confirm");
      continue;
    }
    seen.insert({p["a"].get<int>(), p["b"].get<int>()});
    ASSERT_EQ(p["lanes"].size(), 1u);
    EXPECT_EQ(p["lanes"][0]["latency"].size(), 8u);
    EXPECT_EQ(p["lanes"][0]["bandwidth"].size(), 2u);
  }
  EXPECT_EQ(seen.size(), 6u);
  // Its metrics: every unit's latency and bandwidth, in a file promtool accepts.
  const fs::path prom = dir_ / "fabric.prom";
  const Result m = collbench("report " + out.string() + " --prom " + prom.string());
  ASSERT_EQ(m.code, 0) << describe(m);
  const std::string text = slurp(prom);
  EXPECT_NE(text.find("collbench_node_fabric_latency_seconds{command=\"fabric\",node="), std::string::npos) << text;
  EXPECT_NE(text.find("collbench_node_fabric_bandwidth_bytes_per_second{command=\"fabric\",node="), std::string::npos)
      << text;
  const Result lint = shell("promtool check metrics < " + prom.string());
  EXPECT_EQ(lint.code, 0) << describe(lint);
  EXPECT_EQ(lint.out + lint.err, "") << text;
  for (const char* m : {"latency_us", "bandwidth_gbs"}) {
    const json& v = d["matrices"][m]["values"];
    ASSERT_EQ(v.size(), 4u) << m;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        if (i == j) EXPECT_TRUE(v[i][j].is_null());
        else EXPECT_GT(v[i][j].get<double>(), 0) << m << " " << i << "," << j;
      }
  }
}

// Iteration counts that would take minutes, a budget of seconds: every measurement stops on time
// with fewer samples (at least 3), both sides agreeing, and the verdict comes from what was taken.
TEST_F(Fabric, MeasurementsEndOnTimeWithinTheBudget) {
  const fs::path out = dir_ / "fabric.json";
  const auto start = std::chrono::steady_clock::now();
  const Result r = collbench("fabric --provider tcp -b 8 -e 64K --latency-max 1K --bandwidth-min 64K -n 10000000 -w 10 "
                             "--bw-iters 10000000 --bw-warmup 1 --window 4 --budget 20s --no-color -o " +
                                 out.string(),
                             2);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.code, 0) << describe(r);
  // Uncapped, 8 ping-pong sizes x 10^7 iterations would run for hours; a generous bound for a busy host.
  // The budget gives each measurement about 0.4 s: with a CPU hog on one of two cores, a ping-pong
  // waits for the scheduler (ms), and 0.1 s (a 6 s budget) starved the 128 B size.
  EXPECT_LT(wall, 120) << describe(r);
  const json d = read_json(out);
  EXPECT_EQ(d["budget_s"], 20);
  const json& lane = d["pairs"][0]["lanes"][0];
  ASSERT_EQ(lane["latency"].size(), 8u);
  for (const auto& p : lane["latency"]) {
    EXPECT_GE(p["samples"].get<int>(), 3);
    EXPECT_LT(p["samples"].get<int>(), 10000000);
  }
  ASSERT_EQ(lane["bandwidth"].size(), 1u);
  EXPECT_GE(lane["bandwidth"][0]["samples"].get<int>(), 3);
  EXPECT_LT(lane["bandwidth"][0]["samples"].get<int>(), 10000000);
}

TEST_F(Fabric, ALaneTooSlowForItsShareSkipsLargerSizesAndIsJudgedAtItsLast) {
  // --budget 2s gives each of the 31 measurements ~14 ms: a 32 MiB x 4 stream (128 MiB an iteration)
  // cannot do its warm-up and 3 samples in that, so the lane stops at the first size that cannot.
  const fs::path out = dir_ / "fabric.json";
  const Result r = collbench("fabric --provider tcp -b 64K -e 32M --latency-max 64K --bandwidth-min 64K -n 10 -w 2 "
                             "--bw-iters 20 --bw-warmup 2 --window 4 --budget 2s --no-color -o " +
                                 out.string(),
                             2);
  ASSERT_EQ(r.code, 0) << describe(r);
  const json d = read_json(out);
  const json& lane = d["pairs"][0]["lanes"][0];
  ASSERT_TRUE(lane.contains("bandwidth_starved_at")) << lane.dump();
  const auto starved = lane["bandwidth_starved_at"].get<std::uint64_t>();
  EXPECT_LT(starved, 32ull << 20);
  ASSERT_FALSE(lane["bandwidth"].empty());
  EXPECT_EQ(lane["bandwidth"].back()["bytes"].get<std::uint64_t>(), starved);  // nothing larger was measured
  EXPECT_GE(lane["bandwidth"].back()["samples"].get<int>(), 3);
  EXPECT_EQ(d["matrices"]["bandwidth_gbs"]["bytes"].get<std::uint64_t>(), starved);
  EXPECT_NE(r.out.find("[WARN] FABRIC_SIZES_SKIPPED (P2): 1 lane(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bandwidth is judged at"), std::string::npos) << r.out;
}

TEST_F(Fabric, TcpOnAnEfaInstanceProfileIsTcpFallback) {
  const Result r = collbench(std::string(kQuick) + " --instance-type p5.48xlarge", 2);
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_NE(r.out.find("[FAIL] EFA_TCP_FALLBACK (P0): p5.48xlarge has 32 EFA devices, but libfabric ran on tcp"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("§ 13 EFA TCP Fallback"), std::string::npos) << r.out;
}

TEST_F(Fabric, UnknownProviderListsTheAvailableOnesAndWritesNothing) {
  const fs::path out = dir_ / "fabric.json";
  const Result r = collbench("fabric --provider nosuch -o " + out.string(), 2);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("--provider nosuch: unknown"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("tcp"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(Fabric, ProviderWithoutRdmIsBadInput) {
  // Without the ofi_rxm/ofi_rxd layers, udp offers datagram endpoints only.
  setenv("FI_PROVIDER", "^ofi_rxm,ofi_rxd", 1);
  const Result r = collbench("fabric --provider udp", 2);
  unsetenv("FI_PROVIDER");
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("offers no RDM endpoint"), std::string::npos) << r.err;
}

TEST_F(Fabric, BadSizesAreRefusedBeforeAnythingRuns) {
  const fs::path out = dir_ / "fabric.json";
  const Result r = collbench("fabric --provider tcp -b 1M -e 8 -o " + out.string(), 2);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("-b"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("# Provider"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  const Result missing = collbench("fabric --provider tcp -o " + (dir_ / "no/such/dir/f.json").string(), 2);
  EXPECT_EQ(missing.code, 2) << describe(missing);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
}

TEST_F(Fabric, PeerThatNeverAnswersIsNamedNotWaitedForForever) {
  const fs::path out = dir_ / "fabric.json";
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = collbench("fabric --provider tcp -b 8 -e 8 --timeout 2 --inject silent:1 -o " + out.string(), 2);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.code, 0) << describe(r);
  EXPECT_LT(took, 60) << describe(r);
  EXPECT_NE(r.err.find("[FAIL] FABRIC_PEER_TIMEOUT (P0): rank 0 (host "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no answer from rank 1 (host "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--timeout 2 s"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace collbench::e2e
