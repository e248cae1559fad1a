// The slow-link, drift and whole-job-threshold rules on simulated jobs: each planted fault is
// named (and nothing else), each healthy or differently faulty job is not flagged by them, and too
// little data is INFO.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/inspector/inspector_fixture.h"

namespace collbench::report::inspector {
namespace {

bool has_code(const std::vector<Finding>& fs, const std::string& code) {
  return std::any_of(fs.begin(), fs.end(), [&](const Finding& f) { return f.code == code; });
}

sim::JobSpec with_pairs(int hosts, int gpus, sim::Fault fault = sim::Fault::None, std::uint64_t seed = 1) {
  auto s = spec(hosts, gpus, fault, seed);
  s.pairs = true;
  return s;
}

// --- SLOW_LINK ---

TEST_F(InspectorJob, NamesTheSlowLinkAndNotItsHosts) {
  for (auto [hosts, gpus, a] : {std::tuple{4, 2, 1}, std::tuple{8, 8, 5}}) {
    auto s = with_pairs(hosts, gpus, sim::Fault::SlowLink);
    s.fault_host = a, s.link_host = a + 1;
    const auto fs = inspector_findings(run(s, std::to_string(hosts)));
    const auto p = problems(fs);
    ASSERT_EQ(p.size(), 1u) << codes(fs);
    EXPECT_EQ(p[0].code, "SLOW_LINK");
    EXPECT_EQ(p[0].tag, Tag::Fail);
    EXPECT_EQ(p[0].subject.kind, SubjectKind::Link);
    EXPECT_EQ(p[0].subject.hosts, (std::vector<std::string>{sim::host_name(a), sim::host_name(a + 1)}));
    EXPECT_NE(p[0].message.find("rests on"), std::string::npos) << p[0].message;
    EXPECT_NE(p[0].message.find("minutes"), std::string::npos) << p[0].message;
    EXPECT_FALSE(has_code(fs, "STRAGGLER_NODE")) << codes(fs);
  }
}

// The power side of the link rule: a slow node slows both of its pairs, so it is a node, not a link.
TEST_F(InspectorJob, ASlowNodeAmongPairsIsANodeNotALink) {
  for (auto [hosts, gpus, h] : {std::tuple{4, 2, 1}, std::tuple{8, 8, 6}}) {
    auto s = with_pairs(hosts, gpus, sim::Fault::SlowNode);
    s.fault_host = h;
    const auto fs = inspector_findings(run(s, std::to_string(hosts)));
    const auto p = problems(fs);
    ASSERT_EQ(p.size(), 1u) << codes(fs);
    EXPECT_EQ(p[0].code, "STRAGGLER_NODE");
    EXPECT_EQ(p[0].subject.hosts, std::vector<std::string>{sim::host_name(h)});
  }
}

TEST_F(InspectorJob, HealthyJobsWithPairsGetNoFailOrWarn) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed)
    for (auto [hosts, gpus] : {std::pair{4, 2}, std::pair{8, 8}}) {
      const auto fs = inspector_findings(run(with_pairs(hosts, gpus, sim::Fault::None, seed),
                                             std::to_string(seed) + "-" + std::to_string(hosts)));
      EXPECT_TRUE(problems(fs).empty()) << codes(fs);
      EXPECT_EQ(fs.back().code, "INSPECTOR_HEALTHY") << codes(fs);
    }
}

// The medians the two rules share: every pair communicator is compared once, with its peers.
TEST_F(InspectorJob, PeerMediansAreComputedOncePerSeries) {
  const Job job = run(with_pairs(8, 2, sim::Fault::SlowLink));
  const PeerComparison peers = compare_peers(job);
  std::size_t pair_series = 0, slow = 0;
  for (const auto& e : peers.entries)
    if (e.coll == "AllReduce" && e.bytes == (128u << 20)) {
      ++pair_series;
      slow += e.slow;
      EXPECT_EQ(e.peers, 8u);
    }
  EXPECT_EQ(pair_series, 8u);
  EXPECT_EQ(slow, 1u);
  EXPECT_TRUE(slow_node_findings(job, peers).empty());
  EXPECT_EQ(slow_link_findings(job, peers).size(), 1u);
}

// --- BUSBW_DRIFT ---

TEST_F(InspectorJob, NamesADriftLinearOrStep) {
  for (bool step : {false, true})
    for (auto [hosts, gpus] : {std::pair{4, 2}, std::pair{8, 8}}) {
      auto s = spec(hosts, gpus, sim::Fault::Drift);
      s.drift_step = step;
      const auto fs = inspector_findings(run(s, fmt::format("{}-{}", step, hosts)));
      const auto p = problems(fs);
      ASSERT_EQ(p.size(), 1u) << codes(fs);
      EXPECT_EQ(p[0].code, "BUSBW_DRIFT");
      EXPECT_EQ(p[0].tag, Tag::Warn);
      EXPECT_EQ(p[0].subject.kind, SubjectKind::World);
      EXPECT_NE(p[0].message.find("the whole job got slower"), std::string::npos) << p[0].message;
      EXPECT_NE(p[0].message.find("rests on"), std::string::npos) << p[0].message;
      EXPECT_NE(p[0].message.find("minutes"), std::string::npos) << p[0].message;
    }
}

// A host that slowed down as the job ran drifts every communicator it is in: that host is named
// (and, slow for half the job, it may also be the straggler against its peers: the same host).
TEST_F(InspectorJob, NamesTheHostWhoseCommunicatorsDrifted) {
  for (auto [hosts, gpus, h] : {std::tuple{4, 2, 2}, std::tuple{8, 8, 5}}) {
    auto s = spec(hosts, gpus, sim::Fault::Drift);
    s.drift_host = h, s.drift_step = true;
    const auto fs = inspector_findings(run(s, std::to_string(hosts)));
    const auto p = problems(fs);
    ASSERT_TRUE(has_code(p, "BUSBW_DRIFT")) << codes(fs);
    for (const auto& f : p) {
      EXPECT_TRUE(f.code == "BUSBW_DRIFT" || f.code == "STRAGGLER_NODE") << codes(fs);
      EXPECT_EQ(f.subject.kind, SubjectKind::Node) << codes(fs);
      EXPECT_EQ(f.subject.hosts, std::vector<std::string>{sim::host_name(h)}) << codes(fs);
    }
  }
}

// Healthy jobs five times noisier than the default, and a drift below the 10% floor: no drift.
TEST_F(InspectorJob, NoiseAndASmallDriftAreNotDrift) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    auto s = spec(4, 2, sim::Fault::None, seed);
    s.noise = 0.10;
    const auto fs = inspector_findings(run(s, std::to_string(seed)));
    EXPECT_FALSE(has_code(fs, "BUSBW_DRIFT")) << codes(fs);
  }
  auto s = spec(4, 2, sim::Fault::Drift);
  s.drift_share = 0.04;
  const auto fs = inspector_findings(run(s, "small"));
  EXPECT_FALSE(has_code(fs, "BUSBW_DRIFT")) << codes(fs);
  EXPECT_TRUE(drift_findings(run(s, "small2")).empty());
}

TEST_F(InspectorJob, TooShortForDriftIsInfo) {
  auto s = spec(4, 2, sim::Fault::Drift);
  s.collectives = static_cast<int>(kDrift.min_samples) - 1;
  const auto fs = drift_findings(run(s));
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "INSPECTOR_TOO_LITTLE");
  EXPECT_EQ(fs[0].tag, Tag::Info);
  EXPECT_NE(fs[0].message.find("drift not judged"), std::string::npos) << fs[0].message;
}

// --- the whole job against thresholds ---

InstanceThresholds test_thresholds(std::uint64_t bytes, double fail, double warn, int min_nodes = 2) {
  InstanceThresholds t;
  t.instance_type = "p5.48xlarge";
  t.file = "/tmp/p5.48xlarge.json";
  ThresholdRow row;
  row.op = "all_reduce", row.scope = "world", row.min_nodes = min_nodes, row.bytes = bytes;
  row.fail_below = fail, row.warn_below = warn, row.basis = "published";
  t.rows.push_back(row);
  row.op = "all_to_all";  // not what the Inspector's world AllReduce is judged against
  t.rows.push_back(row);
  return t;
}

TEST_F(InspectorJob, JudgesTheWorldCommunicatorAgainstThresholds) {
  const Job job = run(spec(4, 2));  // world AllReduce 64 MiB at about 39.7 GB/s busbw
  struct Case {
    double fail, warn;
    const char* code;
    Tag tag;
  };
  for (const Case c : {Case{30, 35, "BUSBW_OK", Tag::Pass}, Case{30, 45, "BUSBW_LOW", Tag::Warn},
                       Case{45, 50, "BUSBW_BELOW_THRESHOLD", Tag::Fail}}) {
    const auto fs = job_threshold_findings(job, test_thresholds(64u << 20, c.fail, c.warn));
    ASSERT_EQ(fs.size(), 1u) << codes(fs);
    EXPECT_EQ(fs[0].code, c.code) << codes(fs);
    EXPECT_EQ(fs[0].tag, c.tag);
    EXPECT_EQ(fs[0].subject.kind, SubjectKind::World);
    EXPECT_NE(fs[0].message.find("rests on 200 joined collectives of 1 communicator, 8 ranks"), std::string::npos)
        << fs[0].message;
    EXPECT_EQ(fs[0].message.find("out-of-place"), std::string::npos) << fs[0].message;
  }
  // A smaller row's size is judged at the job's next size up, as for an nccl-tests sweep.
  EXPECT_EQ(job_threshold_findings(job, test_thresholds(32u << 20, 45, 50))[0].code, "BUSBW_BELOW_THRESHOLD");
  // In the whole verdict: the FAIL is the only problem, and a passing job stays healthy.
  const auto failing = problems(inspector_findings(job, test_thresholds(64u << 20, 45, 50)));
  ASSERT_EQ(failing.size(), 1u) << codes(failing);
  EXPECT_EQ(failing[0].code, "BUSBW_BELOW_THRESHOLD");
  EXPECT_EQ(inspector_findings(job, test_thresholds(64u << 20, 30, 35)).back().code, "INSPECTOR_HEALTHY");
}

TEST_F(InspectorJob, SaysWhyTheWholeJobWasNotJudged) {
  const Job job = run(spec(4, 2));
  auto info = [&](const std::vector<Finding>& fs, const std::string& why) {
    ASSERT_EQ(fs.size(), 1u) << codes(fs);
    EXPECT_EQ(fs[0].code, "THRESHOLDS_SKIPPED");
    EXPECT_EQ(fs[0].tag, Tag::Info);
    EXPECT_NE(fs[0].message.find(why), std::string::npos) << fs[0].message;
  };
  info(job_threshold_findings(job, std::nullopt), "no thresholds for the job's instance type");
  info(job_threshold_findings(job, test_thresholds(2ull << 30, 300, 350)), "are all below that");
  info(job_threshold_findings(job, test_thresholds(64u << 20, 300, 350, /*min_nodes=*/8)),
       "has no all_reduce row for 4 nodes");
  info(job_threshold_findings(run(spec(1, 8), "one-host"), test_thresholds(64u << 20, 300, 350)),
       "no communicator spans all 8 ranks on more than one node");
  auto s = spec(4, 2);
  s.collectives = static_cast<int>(kMinSeries) - 1;
  info(job_threshold_findings(run(s, "short"), test_thresholds(64u << 20, 300, 350)), "has no AllReduce size");
}

}  // namespace
}  // namespace collbench::report::inspector
