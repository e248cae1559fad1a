#include <gtest/gtest.h>

#include "reports/run/compare.h"

namespace collbench::report {
namespace {

using nlohmann::json;

json make_case(std::uint64_t bytes, double mean_us, double stdev_us, int samples,
               const std::string& placement = "out_of_place") {
  const double busbw = static_cast<double>(bytes) / 1e3 / mean_us;
  return {{"op", "all_reduce"},
          {"dtype", "float"},
          {"placement", placement},
          {"bytes", bytes},
          {"busbw_gbs", busbw},
          {"time_us", {{"mean", mean_us}, {"median", mean_us}, {"stdev", stdev_us}, {"samples", samples}}}};
}

json make_run(std::vector<json> cases, int ranks = 16, const std::string& nccl = "2.27.7") {
  return {{"schema", "collbench.run/1"},
          {"world",
           {{"ranks", ranks},
            {"instance_type", "p5.48xlarge"},
            {"backend", "nccl"},
            {"nodes", json::array({{{"name", "a"}}, {{"name", "b"}}})},
            {"versions", {{"nccl", nccl}}}}},
          {"cases", cases}};
}

// Both placements of 64 KiB, 1 MiB and 16 MiB (cases 0-1, 2-3, 4-5); the 1 MiB ones `slow_factor`
// times slower, the in-place one `ip_factor` times that.
std::vector<json> sweep(double slow_factor_at_1m, double stdev_frac, double ip_factor = 1.0) {
  std::vector<json> out;
  for (std::uint64_t b : {1u << 16, 1u << 20, 1u << 24}) {
    const double mean = 100.0 * static_cast<double>(b) / 65536.0 * (b == (1u << 20) ? slow_factor_at_1m : 1.0);
    out.push_back(make_case(b, mean, mean * stdev_frac, 50));
    const double ip = b == (1u << 20) ? mean * ip_factor : mean;
    out.push_back(make_case(b, ip, ip * stdev_frac, 50, "in_place"));
  }
  return out;
}

int count(const Comparison& c, Change v) {
  int n = 0;
  for (const auto& k : c.cases) n += k.verdict == v;
  return n;
}

bool has(const Comparison& c, const std::string& code) {
  for (const auto& f : c.findings)
    if (f.code == code) return true;
  return false;
}

}  // namespace

TEST(Compare, IdenticalRunsAreTheSame) {
  const auto run = make_run(sweep(1.0, 0.01));
  const auto c = compare_runs(run, run, 0.05);
  EXPECT_EQ(count(c, Change::Same), 6);
  EXPECT_TRUE(has(c, "NO_REGRESSION"));
  EXPECT_FALSE(has(c, "REGRESSION"));
  EXPECT_TRUE(c.version_changes.empty());
}

TEST(Compare, OneSizeTwentyPercentSlowerWithTightSamplesIsWorseThereOnly) {
  const auto c = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.25, 0.01)), 0.05);
  ASSERT_EQ(c.cases.size(), 6u);
  for (std::size_t i : {0u, 1u, 4u, 5u}) EXPECT_EQ(c.cases[i].verdict, Change::Same) << i;
  for (std::size_t i : {2u, 3u}) {
    EXPECT_EQ(c.cases[i].verdict, Change::Worse) << i;
    EXPECT_NEAR(c.cases[i].rel_change, -0.2, 1e-9);
    EXPECT_FALSE(c.cases[i].agreed.empty());  // each placement agrees with the other
  }
  EXPECT_TRUE(has(c, "REGRESSION"));
  EXPECT_FALSE(has(c, "NO_REGRESSION"));
}

TEST(Compare, ACaseWhoseIterationsScatterCannotShowASmallerChange) {
  // 1/1.064 = 6% less busbw; iterations spread by 30% put the floor at 30%.
  const auto c = compare_runs(make_run(sweep(1.0, 0.3)), make_run(sweep(1.064, 0.3)), 0.05);
  EXPECT_NEAR(c.cases[2].noise, 0.3, 1e-9);
  EXPECT_NEAR(c.cases[2].floor, 0.3, 1e-9);
  EXPECT_EQ(c.cases[2].verdict, Change::Same);
  EXPECT_FALSE(has(c, "REGRESSION"));
  // Power: the same noisy case halved in speed is still a regression.
  const auto w = compare_runs(make_run(sweep(1.0, 0.3)), make_run(sweep(2.0, 0.3)), 0.05);
  EXPECT_EQ(w.cases[2].verdict, Change::Worse);
  EXPECT_EQ(w.cases[3].verdict, Change::Worse);
  // The floor widens with the noisier run's spread, either side.
  const auto one_side = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.064, 0.3)), 0.05);
  EXPECT_NEAR(one_side.cases[2].floor, 0.3, 1e-9);
}

TEST(Compare, ClassifyNeedsTheFloorSignificanceAndAgreement) {
  EXPECT_EQ(classify(-0.04, 50, 0.05), Change::Same);
  EXPECT_EQ(classify(-0.10, 50, 0.05), Change::Worse);
  EXPECT_EQ(classify(-0.10, 1, 0.05), Change::Inconclusive);
  EXPECT_EQ(classify(-0.10, 50, 0.05, /*agreed=*/false), Change::Inconclusive);
  EXPECT_EQ(classify(-0.10, NAN, 0.05), Change::Worse);  // no statistics: the floor and agreement decide
  EXPECT_EQ(classify(-0.10, 50, 0.15), Change::Same);    // within a noisy run's floor
  EXPECT_EQ(classify(0.10, -50, 0.05), Change::Better);
  EXPECT_EQ(classify(0.10, -1, 0.05), Change::Same);
}

TEST(Compare, OneCaseSlowerAloneIsNoRegression) {
  // Only the out-of-place 1 MiB is slower; in-place and the neighbouring sizes did not move. The
  // current run's placements now disagree by 22% there, which is the noise floor's measure.
  const auto c = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.25, 0.01, 1 / 1.25)), 0.05);
  EXPECT_DOUBLE_EQ(c.cases[2].floor, 0.05);  // the placements' gap is not the case's noise
  EXPECT_NE(c.cases[2].verdict, Change::Worse);
  EXPECT_TRUE(c.cases[2].agreed.empty());
  EXPECT_FALSE(has(c, "REGRESSION"));
  // With no spread to go by (one placement only), agreement alone keeps it from being a regression.
  std::vector<json> base, cur;
  for (const auto& k : sweep(1.0, 0.01)) if (k["placement"] == "out_of_place") base.push_back(k);
  for (const auto& k : sweep(1.25, 0.01)) if (k["placement"] == "out_of_place") cur.push_back(k);
  const auto one = compare_runs(make_run(base), make_run(cur), 0.05);
  EXPECT_EQ(one.cases[1].verdict, Change::Inconclusive);
  EXPECT_FALSE(has(one, "REGRESSION"));
}

TEST(Compare, APlacementGapIsNotNoise) {
  // Both runs' placements differ by 10% at 1 MiB (they do different work); a 12% drop of both there
  // is a regression: the floor stays the tolerance, as the cases' own samples are tight.
  const auto c = compare_runs(make_run(sweep(1.0, 0.01, 1.1)), make_run(sweep(1.0 / 0.88, 0.01, 1.1)), 0.05);
  EXPECT_DOUBLE_EQ(c.cases[2].floor, 0.05);
  EXPECT_EQ(c.cases[2].verdict, Change::Worse);
  EXPECT_EQ(c.cases[3].verdict, Change::Worse);
  for (std::size_t i : {0u, 1u, 4u, 5u}) EXPECT_EQ(c.cases[i].verdict, Change::Same) << i;
  // A blip in one placement of the baseline alone (its in-place 1 MiB 14% slow) is no regression.
  const auto blip = compare_runs(make_run(sweep(1.0, 0.01, 1 / 0.86)), make_run(sweep(1.0, 0.01)), 0.05);
  EXPECT_EQ(count(blip, Change::Worse), 0);
}

// 64 KiB (cases 0-1) made latency-bound: 1000 us, far below the series' peak busbw.
std::vector<json> latency_bound_sweep(double slow_at_64k, double stdev_frac_at_64k, double ip_factor = 1.0) {
  auto cases = sweep(1.0, 0.01);
  for (std::size_t i : {0u, 1u}) {
    const double mean = 1000 * slow_at_64k * (i ? ip_factor : 1.0);
    cases[i] = make_case(1u << 16, mean, mean * stdev_frac_at_64k, 50, i ? "in_place" : "out_of_place");
  }
  return cases;
}

TEST(Compare, LatencyBoundDropsNeedANeighbourPastItsOwnFloor) {
  // 12% slower at 64 KiB, both placements, tight samples: each is the other's evidence.
  const auto c = compare_runs(make_run(latency_bound_sweep(1.0, 0.01)), make_run(latency_bound_sweep(1 / 0.88, 0.01)),
                              0.05);
  EXPECT_TRUE(c.cases[0].latency_bound);
  EXPECT_DOUBLE_EQ(c.cases[0].floor, 0.05);  // no blanket widening
  EXPECT_EQ(c.cases[0].verdict, Change::Worse);
  EXPECT_EQ(c.cases[1].verdict, Change::Worse);
  // The out-of-place case 25% slower with tight samples; the in-place one 20% slower but scattering
  // by 40%: past the tolerance, not past its own floor, so it is no evidence at a latency-bound size.
  auto noisy_base = latency_bound_sweep(1.0, 0.01), noisy_cur = latency_bound_sweep(1.33, 0.01, 1.25 / 1.33);
  noisy_cur[1]["time_us"]["stdev"] = 0.4 * noisy_cur[1]["time_us"]["mean"].get<double>();
  const auto w = compare_runs(make_run(noisy_base), make_run(noisy_cur), 0.05);
  ASSERT_TRUE(w.cases[1].latency_bound);
  EXPECT_NEAR(w.cases[1].floor, 0.4, 1e-9);
  EXPECT_EQ(w.cases[0].verdict, Change::Inconclusive);
  EXPECT_TRUE(w.cases[0].agreed.empty());
  EXPECT_FALSE(has(w, "REGRESSION"));
}

TEST(Compare, AChangeOfTheTailAloneIsNotARegression) {
  // The mean 20% slower at 1 MiB, both placements, the median unchanged: a few slow iterations.
  auto cur = sweep(1.25, 0.01);
  for (std::size_t i : {2u, 3u}) cur[i]["time_us"]["median"] = sweep(1.0, 0.01)[i]["time_us"]["median"];
  const auto c = compare_runs(make_run(sweep(1.0, 0.01)), make_run(cur), 0.05);
  EXPECT_EQ(c.cases[2].verdict, Change::Inconclusive);
  EXPECT_NEAR(c.cases[2].median_change, 0, 1e-12);
  EXPECT_FALSE(has(c, "REGRESSION"));
  // Power: when the median moved with it, it is one.
  const auto w = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.25, 0.01)), 0.05);
  EXPECT_EQ(w.cases[2].verdict, Change::Worse);
  bool said = false;
  for (const auto& f : w.findings) said = said || f.message.find("median -20.0%") != std::string::npos;
  EXPECT_TRUE(said);
}

// A run whose `per_machine` ranks share one 2-core machine.
json crowded(json run, int per_machine) {
  json ranks = json::array();
  for (int r = 0; r < per_machine; ++r)
    ranks.push_back({{"rank", r}, {"pid", 100 + r}, {"host", "vm"}, {"machine", "boot-1"}, {"cores", 2}});
  run["world"]["rank_info"] = ranks;
  return run;
}

TEST(Compare, LatencyBoundDropsOfCrowdedRunsAreInconclusive) {
  const json base = make_run(latency_bound_sweep(1.0, 0.01)), cur = make_run(latency_bound_sweep(2.0, 0.01));
  const auto c = compare_runs(crowded(base, 4), crowded(cur, 4), 0.05);
  EXPECT_EQ(c.cases[0].verdict, Change::Inconclusive);
  EXPECT_EQ(c.cases[0].crowded, "4 ranks share 2 cores on vm");
  bool said = false;
  for (const auto& f : c.findings)
    said = said || (f.code == "REGRESSION_INCONCLUSIVE" &&
                    f.message.find("latency-bound while 4 ranks share 2 cores on vm") != std::string::npos);
  EXPECT_TRUE(said);
  // Power: a bandwidth-bound drop of the same crowded runs is still a regression ...
  const auto bw = compare_runs(crowded(make_run(sweep(1.0, 0.01)), 4), crowded(make_run(sweep(2.0, 0.01)), 4), 0.05);
  EXPECT_EQ(bw.cases[2].verdict, Change::Worse);
  // ... and the latency-bound one is, where each rank has a core.
  const auto roomy = compare_runs(crowded(base, 2), crowded(cur, 2), 0.05);
  EXPECT_EQ(roomy.cases[0].verdict, Change::Worse);
  EXPECT_TRUE(roomy.cases[0].crowded.empty());
}

TEST(Compare, MismatchedSetupsAreReportedNotCompared) {
  const auto c = compare_runs(make_run(sweep(1.0, 0.01), 16), make_run(sweep(2.0, 0.01), 8), 0.05);
  EXPECT_TRUE(c.cases.empty());
  EXPECT_TRUE(has(c, "BASELINE_MISMATCH"));
  EXPECT_FALSE(has(c, "REGRESSION"));
}

TEST(Compare, VersionChangesAreListedNextToTheVerdict) {
  const auto c = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.25, 0.01), 16, "2.28.9"), 0.05);
  ASSERT_EQ(c.version_changes.size(), 1u);
  EXPECT_EQ(c.version_changes[0], "nccl 2.27.7 -> 2.28.9");
  EXPECT_TRUE(has(c, "VERSIONS_CHANGED"));
  for (const auto& f : c.findings)
    if (f.code == "REGRESSION") {
      EXPECT_NE(f.message.find("2.27.7 -> 2.28.9"), std::string::npos) << f.message;
    }
}

TEST(Compare, ARegressionIsAboutTheGroupThatRegressed) {
  // --scope node: one case per node and size; only node b's own collective got slower.
  const auto on = [](std::vector<json> cases, int id, std::vector<int> ranks) {
    for (auto& c : cases) c["group"] = {{"scope", "node"}, {"id", id}, {"ranks", ranks}};
    return cases;
  };
  const auto run = [&](double slow_b) {
    auto cases = on(sweep(1.0, 0.01), 0, {0, 1});
    for (auto& c : on(sweep(slow_b, 0.01), 1, {2, 3})) cases.push_back(c);
    json doc = make_run(cases, 4);
    doc["world"]["nodes"] = json::parse(R"([{"name": "a", "ranks": [0, 1]}, {"name": "b", "ranks": [2, 3]}])");
    return doc;
  };
  const auto c = compare_runs(run(1.0), run(1.25), 0.05);
  EXPECT_EQ(c.cases.size(), 12u);  // node a's cases are not compared with node b's
  int regressions = 0;
  for (const auto& f : c.findings) {
    if (f.code != "REGRESSION") {
      EXPECT_EQ(f.subject, Subject::world()) << f.code;
      continue;
    }
    ++regressions;
    EXPECT_EQ(f.subject, Subject::node("b", {2, 3}));
    EXPECT_NE(f.message.find("at 1 MiB on node b:"), std::string::npos) << f.message;
  }
  EXPECT_EQ(regressions, 2);  // out-of-place and in-place at 1 MiB
  // A world run's regression blames no node.
  const auto w = compare_runs(make_run(sweep(1.0, 0.01)), make_run(sweep(1.25, 0.01)), 0.05);
  for (const auto& f : w.findings) EXPECT_EQ(f.subject, Subject::world()) << f.code;
  EXPECT_TRUE(has(w, "REGRESSION"));
}

}  // namespace collbench::report

namespace collbench::report {

TEST(Compare, ADropMeasuredOnABusyHostIsInconclusive) {
  auto base = sweep(1.0, 0.01), cur = sweep(1.25, 0.01);
  for (auto& c : cur) c["cpu_wait_share"] = 0.3;  // the processes waited for a CPU 30% of the time
  const auto c = compare_runs(make_run(base), make_run(cur), 0.05);
  EXPECT_EQ(c.cases[2].verdict, Change::Inconclusive);
  EXPECT_TRUE(c.cases[2].busy);
  EXPECT_FALSE(has(c, "REGRESSION"));
  bool said = false;
  for (const auto& f : c.findings)
    said = said || (f.code == "REGRESSION_INCONCLUSIVE" &&
                    f.message.find("waited for a CPU 30% of the time: a busy host") != std::string::npos);
  EXPECT_TRUE(said);
  // A quiet host's drop stays worse.
  for (auto& c2 : cur) c2["cpu_wait_share"] = 0.01;
  EXPECT_EQ(compare_runs(make_run(base), make_run(cur), 0.05).cases[2].verdict, Change::Worse);
}

}  // namespace collbench::report

namespace collbench::report {
namespace {

json on_backend(json run, const std::string& backend) {
  run["world"]["backend"] = backend;
  return run;
}

TEST(CompareTolerance, TheHostPathGetsTheToleranceItsRerunsNeed) {
  // 20% slower at 1 MiB, both placements: past the 5% of a GPU run, within the 25% of host runs,
  // whose identical reruns here drifted by up to 30% (scripts/rerun-noise.sh).
  const json base = make_run(sweep(1.0, 0.01)), cur = make_run(sweep(1.25, 0.01));
  const auto gpu = compare_runs(base, cur, std::nullopt);
  EXPECT_DOUBLE_EQ(gpu.tolerance, 0.05);
  EXPECT_EQ(count(gpu, Change::Worse), 2);
  const auto host = compare_runs(on_backend(base, "mpi"), on_backend(cur, "mpi"), std::nullopt);
  EXPECT_DOUBLE_EQ(host.tolerance, 0.25);
  EXPECT_EQ(count(host, Change::Worse), 0);
  EXPECT_TRUE(has(host, "NO_REGRESSION"));
  EXPECT_NE(render_comparison(host).find("# tolerance 25% (the mpi backend's default"), std::string::npos);
  // 40% slower is a regression on the host path too; and the user's tolerance wins.
  const auto slow = compare_runs(on_backend(base, "mpi"), on_backend(make_run(sweep(1 / 0.6, 0.01)), "mpi"),
                                 std::nullopt);
  EXPECT_EQ(count(slow, Change::Worse), 2);
  const auto strict = compare_runs(on_backend(base, "mpi"), on_backend(cur, "mpi"), 0.05);
  EXPECT_EQ(strict.tolerance_basis, "--tolerance");
  EXPECT_EQ(count(strict, Change::Worse), 2);
}

}  // namespace
}  // namespace collbench::report
