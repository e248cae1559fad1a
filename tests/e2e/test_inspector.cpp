// `collbench analyze DIR` on simulated jobs' NCCL Inspector logs (tests/inspector/simulated_job.h):
// the real binary, 8 and 64 ranks, each planted fault named and nothing else, --json written, and
// bad input refused with exit 2 naming the file and nothing written.
#include <nlohmann/json.hpp>

#include "e2e/collbench_process.h"
#include "tests/inspector/simulated_job.h"

namespace collbench::e2e {
namespace {

namespace sim = collbench::inspector_sim;

class InspectorAnalyze : public CollbenchTest {
 protected:
  // Writes the job, analyzes it; returns the findings of --json, after checking the exit code.
  nlohmann::json analyze(const sim::JobSpec& spec, int want_code, Result* out = nullptr) {
    const auto job = dir_ / "logs";
    fs::remove_all(job);
    sim::write_job(spec, job.string());
    const auto json = dir_ / "verdict.json";
    const Result r = collbench("analyze " + job.string() + " --json " + json.string());
    EXPECT_EQ(r.code, want_code) << describe(r);
    if (out) *out = r;
    if (!fs::exists(json)) return nlohmann::json::array();
    const auto doc = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(doc["schema"], "collbench.inspector/1");
    return doc["findings"];
  }
  static std::vector<nlohmann::json> problems(const nlohmann::json& findings) {
    std::vector<nlohmann::json> p;
    for (const auto& f : findings)
      if (f["tag"] == "FAIL" || f["tag"] == "WARN") p.push_back(f);
    return p;
  }
};

sim::JobSpec job(int hosts, int gpus, sim::Fault fault) {
  sim::JobSpec s;
  s.hosts = hosts, s.gpus = gpus, s.fault = fault;
  return s;
}

TEST_F(InspectorAnalyze, HealthyJobsPass) {
  for (auto [hosts, gpus] : {std::pair{4, 2}, std::pair{8, 8}}) {
    Result r;
    const auto f = analyze(job(hosts, gpus, sim::Fault::None), 0, &r);
    EXPECT_TRUE(problems(f).empty()) << describe(r);
    EXPECT_NE(r.out.find("[PASS] INSPECTOR_HEALTHY"), std::string::npos) << describe(r);
    EXPECT_NE(r.out.find("NCCL Inspector v4.0"), std::string::npos) << describe(r);
  }
}

TEST_F(InspectorAnalyze, NamesEachPlantedFaultAndNothingElse) {
  struct Case {
    int hosts, gpus;
    sim::Fault fault;
    int code;
    const char* finding;
    const char* host;
  };
  for (const Case c : {Case{4, 2, sim::Fault::LateRank, 0, "LATE_RANK", "node-002"},
                       Case{8, 8, sim::Fault::LateRank, 0, "LATE_RANK", "node-002"},
                       Case{4, 2, sim::Fault::SlowNode, 3, "STRAGGLER_NODE", "node-001"},
                       Case{8, 8, sim::Fault::SlowNode, 3, "STRAGGLER_NODE", "node-001"},
                       Case{4, 2, sim::Fault::Hang, 3, "COLLECTIVES_STOPPED", "node-002"},
                       Case{8, 8, sim::Fault::Hang, 3, "COLLECTIVES_STOPPED", "node-002"}}) {
    auto s = job(c.hosts, c.gpus, c.fault);
    s.fault_rank = 2 * c.gpus + 1;  // on node-002
    Result r;
    const auto p = problems(analyze(s, c.code, &r));
    ASSERT_EQ(p.size(), 1u) << describe(r);
    EXPECT_EQ(p[0]["code"], c.finding) << describe(r);
    EXPECT_EQ(p[0]["subject"]["hosts"], nlohmann::json::array({c.host})) << describe(r);
    EXPECT_NE(r.out.find(c.finding), std::string::npos);
  }
}

// 1,024 ranks (128 hosts x 8), 40 collectives five seconds apart: enough for every rule.
TEST_F(InspectorAnalyze, ThousandRanks) {
  struct Case {
    sim::Fault fault;
    int code;
    const char* finding;
  };
  for (const Case c : {Case{sim::Fault::None, 0, ""}, Case{sim::Fault::LateRank, 0, "LATE_RANK"},
                       Case{sim::Fault::SlowNode, 3, "STRAGGLER_NODE"}, Case{sim::Fault::Hang, 3, "COLLECTIVES_STOPPED"}}) {
    auto s = job(128, 8, c.fault);
    s.collectives = 40, s.interval_s = 5, s.hang_after = 20;
    s.fault_rank = 8 * 77 + 3, s.fault_host = 77;
    Result r;
    const auto p = problems(analyze(s, c.code, &r));
    if (c.fault == sim::Fault::None) {
      EXPECT_TRUE(p.empty()) << describe(r);
      EXPECT_NE(r.out.find("[PASS] INSPECTOR_HEALTHY"), std::string::npos) << describe(r);
      continue;
    }
    ASSERT_EQ(p.size(), 1u) << describe(r);
    EXPECT_EQ(p[0]["code"], c.finding) << describe(r);
    EXPECT_EQ(p[0]["subject"]["hosts"], nlohmann::json::array({"node-077"})) << describe(r);
  }
}

// A slow link between two hosts (their shared communicators at half speed; a communicator per
// neighbouring pair of hosts in the job): named with both hosts, and neither host named a straggler;
// the same jobs without the fault pass. 8, 64 and 1,024 ranks.
TEST_F(InspectorAnalyze, NamesTheSlowLinkNotItsHosts) {
  struct Case {
    int hosts, gpus, a;
  };
  for (const Case c : {Case{4, 2, 1}, Case{8, 8, 3}, Case{128, 8, 77}}) {
    auto s = job(c.hosts, c.gpus, sim::Fault::SlowLink);
    s.pairs = true, s.fault_host = c.a, s.link_host = c.a + 1;
    if (c.hosts > 8) s.collectives = 40, s.interval_s = 5;
    Result r;
    const auto p = problems(analyze(s, 3, &r));
    ASSERT_EQ(p.size(), 1u) << describe(r);
    EXPECT_EQ(p[0]["code"], "SLOW_LINK") << describe(r);
    EXPECT_EQ(p[0]["subject"]["kind"], "link") << describe(r);
    EXPECT_EQ(p[0]["subject"]["hosts"], nlohmann::json::array({sim::host_name(c.a), sim::host_name(c.a + 1)}))
        << describe(r);
    EXPECT_EQ(r.out.find("STRAGGLER_NODE"), std::string::npos) << describe(r);
    s.fault = sim::Fault::None;
    const auto healthy = problems(analyze(s, 0, &r));
    EXPECT_TRUE(healthy.empty()) << describe(r);
    EXPECT_NE(r.out.find("[PASS] INSPECTOR_HEALTHY"), std::string::npos) << describe(r);
  }
}

TEST_F(InspectorAnalyze, NamesADriftThatHealthyJobsDoNotShow) {
  auto s = job(4, 2, sim::Fault::Drift);
  Result r;
  const auto p = problems(analyze(s, 0, &r));  // a WARN: exit 0
  ASSERT_EQ(p.size(), 1u) << describe(r);
  EXPECT_EQ(p[0]["code"], "BUSBW_DRIFT") << describe(r);
  EXPECT_NE(r.out.find("[WARN] BUSBW_DRIFT"), std::string::npos) << describe(r);
  s.fault = sim::Fault::None, s.noise = 0.10;
  EXPECT_TRUE(problems(analyze(s, 0, &r)).empty()) << describe(r);
}

// The world communicator's AllReduce against p5.48xlarge's thresholds (4 to 16 nodes: 8 GiB,
// fail below 277.18 GB/s busbw), and an INFO saying why when no instance type is known.
TEST_F(InspectorAnalyze, JudgesTheWholeJobAgainstTheInstanceThresholds) {
  auto s = job(4, 2, sim::Fault::None);
  s.world_bytes = 8ull << 30;
  const auto logs = dir_ / "logs";
  for (auto [gbs, code, finding] : {std::tuple{360.0, 0, "BUSBW_OK"}, std::tuple{200.0, 3, "BUSBW_BELOW_THRESHOLD"}}) {
    s.world_gbs = gbs;
    fs::remove_all(logs);
    sim::write_job(s, logs.string());
    const Result r = collbench("analyze --instance-type p5.48xlarge " + logs.string());
    EXPECT_EQ(r.code, code) << describe(r);
    EXPECT_NE(r.out.find(finding), std::string::npos) << describe(r);
    EXPECT_NE(r.out.find("p5.48xlarge expects busbw >= 277.18"), std::string::npos) << describe(r);
  }
  const Result r = collbench("analyze " + logs.string());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[INFO] THRESHOLDS_SKIPPED"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("BUSBW_BELOW_THRESHOLD"), std::string::npos) << describe(r);
}

// analyze --json, then report: the page draws the rank x time map with the late rank's row marked
// (its host named) and each communicator's busbw over time; the healthy job's page marks no rank.
// The metrics are the document's findings under command="inspector".
TEST_F(InspectorAnalyze, ReportDrawsTheJobAndMarksTheLateRank) {
  for (const sim::Fault fault : {sim::Fault::LateRank, sim::Fault::None}) {
    auto s = job(4, 2, fault);
    s.fault_rank = 5;
    analyze(s, 0);
    const auto page = dir_ / "page.html", prom = dir_ / "metrics.prom";
    const Result r = collbench("report " + (dir_ / "verdict.json").string() + " -o " + page.string() + " --prom " +
                               prom.string());
    ASSERT_EQ(r.code, 0) << describe(r);
    const std::string html = slurp(page), metrics = slurp(prom);
    EXPECT_NE(html.find("how late each rank arrived"), std::string::npos);
    EXPECT_NE(html.find("busbw (8 ranks on 4 nodes)"), std::string::npos);
    EXPECT_NE(html.find("<polyline points=\""), std::string::npos);
    EXPECT_NE(metrics.find("collbench_exit_code{command=\"inspector\"} 0"), std::string::npos) << metrics;
    if (fault == sim::Fault::LateRank) {
      EXPECT_NE(html.find(">▲ rank 5 · node-002</text>"), std::string::npos);
      EXPECT_NE(metrics.find("collbench_findings{command=\"inspector\",tag=\"WARN\",code=\"LATE_RANK\"} 1"),
                std::string::npos)
          << metrics;
    } else {
      EXPECT_EQ(html.find("tick marked"), std::string::npos);
      EXPECT_EQ(metrics.find("LATE_RANK"), std::string::npos) << metrics;
    }
  }
}

TEST_F(InspectorAnalyze, BadInputExitsTwoNamingTheFile) {
  sim::JobSpec s;
  s.collectives = 5;
  const auto a = dir_ / "a", b = dir_ / "b", v5 = dir_ / "v5";
  sim::write_job(s, a.string());
  sim::write_job(s, b.string());
  auto other = s;
  other.comm_id_base = 0x1234500000ull;  // another job's communicators
  sim::write_job(other, (dir_ / "other-job").string());
  s.version = "v5.0";
  sim::write_job(s, v5.string());
  const auto json = dir_ / "out.json";
  struct Bad {
    std::string args, names, says;
  };
  std::ofstream((dir_ / "other").string()) << "{\"header\":{},\"metadata\":{}}\n";
  for (const Bad& bad : {Bad{a.string() + " " + b.string(), b.string(), "more than one job"},
                         Bad{a.string() + " " + (dir_ / "other-job").string(), (dir_ / "other-job").string(),
                             "shares no communicator"},
                         Bad{v5.string(), v5.string(), "'v5.0' is not one collbench reads"}}) {
    const Result r = collbench("analyze " + bad.args + " --json " + json.string());
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(bad.names), std::string::npos) << describe(r);
    EXPECT_NE(r.err.find(bad.says), std::string::npos) << describe(r);
    EXPECT_FALSE(fs::exists(json));
  }
  std::ofstream((dir_ / "nccl_inspector_metrics_GPU-1.prom").string())
      << R"(nccl_bus_bandwidth_gbs{version="v5.1",slurm_job_id="7",node="h",gpu="GPU0",comm_name="c",n_nodes="2",)"
      << R"(nranks="16",collective="AllReduce",message_size="1-2MB",algo_proto="RING_SIMPLE"} 84.1)" << "\n";
  const Result prom = collbench("analyze " + (dir_ / "nccl_inspector_metrics_GPU-1.prom").string());
  EXPECT_EQ(prom.code, 2) << describe(prom);
  EXPECT_NE(prom.err.find("GPU-1.prom': NCCL Inspector Prometheus textfile"), std::string::npos) << describe(prom);
  fs::copy_file(dir_ / "other", a / "zz-other.log");
  const Result r = collbench("analyze " + a.string());
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("zz-other.log': not NCCL Inspector output"), std::string::npos) << describe(r);
}

}  // namespace
}  // namespace collbench::e2e
