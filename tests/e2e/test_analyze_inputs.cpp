// End to end: the inputs that used to end in a HEALTHY that judged nothing, or in no verdict at all
// (issue-style cases): line prefixes, no collective named, ranks without hosts, --nodes against
// the host lines, impossible values, one rank, an unfinished run, and a dip in the curve.
#include "collbench_process.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::issues_found;
using collbench::e2e::Result;
using collbench::e2e::slurp;

const fs::path kPublished = fs::path(COLLBENCH_FIXTURES) / "nccl-tests";
const fs::path kWritten = fs::path(COLLBENCH_FIXTURES) / "written";

using AnalyzeInputs = collbench::e2e::CollbenchTest;


}  // namespace

TEST_F(AnalyzeInputs, AnyLinePrefixIsReadByTheRowGrammar) {
  for (const char* file : {"all_reduce_2x_p5_ray-prefix.txt", "all_reduce_2x_p5_timestamps.txt",
                           "all_reduce_2x_p5_markdown-quote.txt", "all_reduce_2x_p5_kubectl-prefix.txt"}) {
    SCOPED_TRACE(file);
    const Result r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + (kWritten / file).string());
    EXPECT_EQ(r.code, 0) << describe(r);
    EXPECT_NE(r.out.find("nccl-tests text, 64 cases, 16 ranks on 2 node(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[PASS] BUSBW_OK: all_reduce float busbw 443.72 GB/s at 2 GiB"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("MALFORMED_LINE"), std::string::npos) << r.out;
    EXPECT_EQ(issues_found(r.out), 0) << r.out;
  }
}

TEST_F(AnalyzeInputs, NoCollectiveNamedIsInferredFromTheBusFactor) {
  const Result r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + (kWritten / "mylog.txt").string());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("16 ranks on 2 node(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("note: collective all_reduce inferred from busbw/algbw = 1.87"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[PASS] BUSBW_OK"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, RanksWithoutHostsGiveNodesFromTheGpusAndOneNodeIsSaid) {
  // 8 ranks (bus factor 1.75), no rank lines: one p5.48xlarge, so it never crossed the network.
  const fs::path f = dir_ / "all_reduce_8_ranks.txt";
  std::ofstream(f) << "  2147483648     536870912     float     sum      -1   8212.9  261.47  457.57      0   8213.5  "
                      "261.45  457.54      0\n";
  Result r = collbench("analyze --instance-type p5.48xlarge " + f.string());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("8 ranks on 1 node(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("node count 1 inferred from 8 ranks and the 8 GPUs of p5.48xlarge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("never crossed the network"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[PASS] BUSBW_OK"), std::string::npos) << r.out;  // against the single-node row
  // Said to be 2 nodes with host lines naming one: refused before any verdict.
  const fs::path g = dir_ / "one_host.txt";
  std::ofstream(g) << "#  Rank  0 Group  0 Pid   6899 on host-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
                      "#  Rank  1 Group  0 Pid   6900 on host-a device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"
                   << slurp(f);
  r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + g.string());
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("--nodes 2 contradicts the file, whose rank lines name 1 host(s) (host-a)"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(AnalyzeInputs, ImpossibleValuesAreNotTrustedAndNothingIsPassed) {
  const fs::path f = dir_ / "all_reduce_bad.txt";
  std::ofstream(f) << "     1048576        262144     float     sum      -1    123.2    8.51   -5.00      0    121.3    "
                      "8.64   16.21     -3\n"
                      "     2097152        524288     float     sum      -1    1e30   14.24   26.70      0    147.1   "
                      "14.25   26.72      0\n";
  const Result r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + f.string());
  EXPECT_NE(r.out.find("[WARN] IMPLAUSIBLE_VALUES (P1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("busbw -5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#wrong -3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time 1e+30 us"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[PASS]"), std::string::npos) << r.out;  // no RESULTS_EXACT, no HEALTHY
}

TEST_F(AnalyzeInputs, BusbwAboveWhatTheNetworkCarriesIsNotTrusted) {
  // 805 GB/s of all_reduce busbw on 2x p5.48xlarge: each node would receive 429 GB/s, more than its
  // 32 x 100 Gbit/s of EFA. The same table at 480 GB/s (about what 2 x p5 publish) passes.
  // busbw = algbw * 2 (16-1)/16: the 16 ranks are read from the ratio.
  const auto table = [](const std::string& algbw, const std::string& busbw) {
    return "# Collective test starting: all_reduce_perf\n  1073741824     268435456     float     sum      -1   2500.0  " +
           algbw + "  " + busbw + "      0   2500.0  " + algbw + "  " + busbw + "      0\n";
  };
  const fs::path fast = dir_ / "all_reduce_805.txt";
  std::ofstream(fast) << table("429.50", "805.31");
  Result r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + fast.string());
  EXPECT_NE(r.out.find("[WARN] IMPLAUSIBLE_VALUES (P1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("above the 750 GB/s that 2 nodes of p5.48xlarge"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[PASS]"), std::string::npos) << r.out;  // no BUSBW_OK, no HEALTHY
  const fs::path plausible = dir_ / "all_reduce_480.txt";
  std::ofstream(plausible) << table("256.06", "480.11");
  r = collbench("analyze --nodes 2 --instance-type p5.48xlarge " + plausible.string());
  EXPECT_EQ(r.out.find("IMPLAUSIBLE_VALUES"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, OneRankIsNeverHealthy) {
  const fs::path out = dir_ / "one.json";
  Result r = collbench("run --backend mpi --ops all_reduce -b 1K -e 64K -f 8 -n 5 --no-progress --json " + out.string(), 1);
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[WARN] NO_LINK_CROSSED (P2): one rank"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HEALTHY"), std::string::npos) << r.out;
  r = collbench("analyze " + out.string());
  EXPECT_NE(r.out.find("[WARN] NO_LINK_CROSSED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HEALTHY"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, AnUnfinishedRunIsSaidIncomplete) {
  const fs::path full = dir_ / "run.json";
  ASSERT_EQ(collbench("run --backend mpi --ops all_reduce -b 1K -e 64K -f 8 -n 5 --no-progress --thresholds none "
                      "--json " + full.string(), 2).code, 0);
  const nlohmann::json doc = nlohmann::json::parse(slurp(full));
  // The journal a killed run leaves: its header line, then one line per case measured.
  nlohmann::json first = doc;
  for (const char* k : {"cases", "findings", "verdict", "complete", "error"}) first.erase(k);
  first["schema"] = "collbench.run.partial/1";
  const fs::path partial = dir_ / "cut.json.partial";
  {
    std::ofstream p(partial);
    p << first.dump() << "\n" << nlohmann::json{{"case", doc["cases"][0]}}.dump() << "\n";
  }
  Result r = collbench("analyze --thresholds none " + partial.string());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[WARN] INPUT_INCOMPLETE (P2): the file is the journal of a run that did not finish"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("HEALTHY"), std::string::npos) << r.out;
  // A document that says it is not complete.
  nlohmann::json cut = doc;
  cut["complete"] = false;
  std::ofstream(dir_ / "cut.json") << cut.dump();
  r = collbench("analyze --thresholds none " + (dir_ / "cut.json").string());
  EXPECT_NE(r.out.find("[WARN] INPUT_INCOMPLETE (P2): the run ended early"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, ADipInTheCurveIsNamedAndHealthyCurvesAreNot) {
  Result r = collbench("analyze --thresholds none " + (kWritten / "all_reduce_2x_p5_dip-512K-1M.txt").string());
  // Out-of-place is 52% below the curve there, in-place 55%: the depth both agree on.
  EXPECT_NE(r.out.find("[WARN] CURVE_DIP (P1): all_reduce float busbw dips where it should rise: 512 KiB (52% below), "
                       "1 MiB (52% below), against the curve through 256 KiB and 2 MiB"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Advanced NCCL Tuning"), std::string::npos) << r.out;
  r = collbench("analyze --thresholds none " + (kPublished / "all_reduce_2x_p4d.24xlarge_dip-at-64MiB-issue.txt").string());
  EXPECT_NE(r.out.find("[WARN] CURVE_DIP (P1): all_reduce float busbw dips where it should rise: 64 MiB (39% below)"),
            std::string::npos)
      << r.out;
  // Every other published curve is left alone.
  for (const auto& e : fs::directory_iterator(kPublished)) {
    if (e.path().filename().string().find("dip") != std::string::npos) continue;
    SCOPED_TRACE(e.path().filename().string());
    EXPECT_EQ(collbench("analyze --thresholds none " + e.path().string()).out.find("CURVE_DIP"), std::string::npos);
  }
}

TEST_F(AnalyzeInputs, CompareReadsNcclTestsTextOnEitherSide) {
  const std::string orig = (kPublished / "all_reduce_2x_p5.48xlarge.txt").string();
  const std::string slow = (kWritten / "all_reduce_2x_p5_256MiB-40pct-slower.txt").string();
  Result r = collbench("compare " + orig + " " + orig);
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[PASS] NO_REGRESSION: no case of 64"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" worse"), std::string::npos) << r.out;

  r = collbench("compare " + orig + " " + slow);
  EXPECT_EQ(r.code, 3) << describe(r);
  const std::regex worse(R"(\n  all_reduce\s+float\s+\S+\s+(\S+ \S+)\s.*\bworse\b)");
  std::vector<std::string> sizes;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), worse); it != std::sregex_iterator(); ++it)
    sizes.push_back((*it)[1]);
  EXPECT_EQ(sizes, (std::vector<std::string>{"256 MiB", "256 MiB"})) << r.out;  // both placements, nothing else
  EXPECT_NE(r.out.find("[FAIL] REGRESSION (P1): all_reduce float out_of_place at 256 MiB: busbw 342.81 -> 205.69 GB/s "
                       "(-40.0%; no per-iteration statistics; noise floor 5.0%, in_place 256 MiB agrees"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Multi-Node AllReduce Test"), std::string::npos) << r.out;

  // analyze --json turns the text into a baseline that compare and run --baseline read.
  const fs::path base = dir_ / "base.json";
  r = collbench("analyze --nodes 2 --instance-type p5.48xlarge --json " + base.string() + " " + orig);
  EXPECT_EQ(r.code, 0) << describe(r);
  const auto doc = nlohmann::json::parse(slurp(base));
  EXPECT_EQ(doc["schema"], "collbench.run/1");
  EXPECT_EQ(doc["source_format"], "nccl-tests text");
  EXPECT_EQ(doc["cases"].size(), 64u);
  EXPECT_EQ(doc["verdict"]["exit_code"], 0);
  r = collbench("compare " + base.string() + " " + slow);
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_NE(r.out.find("[FAIL] REGRESSION (P1): all_reduce float out_of_place at 256 MiB"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, AllToAllRegressionsPointAtThePairwiseTest) {
  const fs::path base = dir_ / "a.json", cur = dir_ / "b.json";
  ASSERT_EQ(collbench("run --backend mpi --ops all_to_all -b 64K -e 1M -f 4 -n 20 --no-progress --thresholds none --json " +
                          base.string(), 2).code, 0);
  // The reference is what is checked, not the noise rule: the baseline's placements made equal (no
  // spread to raise the floor) and its host marked quiet; the current run every case 40% slower.
  auto doc = nlohmann::json::parse(slurp(base));
  std::map<std::uint64_t, nlohmann::json> out_of_place;
  for (const auto& c : doc["cases"])
    if (c["placement"] == "out_of_place") out_of_place[c["bytes"].get<std::uint64_t>()] = c;
  for (auto& c : doc["cases"]) {
    const auto& o = out_of_place.at(c["bytes"].get<std::uint64_t>());
    c["busbw_gbs"] = o["busbw_gbs"];
    c["time_us"] = o["time_us"];
    c["cpu_wait_share"] = 0.0;
  }
  std::ofstream(base) << doc.dump();
  for (auto& c : doc["cases"]) {
    c["busbw_gbs"] = c["busbw_gbs"].get<double>() * 0.6;
    for (const char* k : {"mean", "median"}) c["time_us"][k] = c["time_us"][k].get<double>() / 0.6;
  }
  std::ofstream(cur) << doc.dump();
  const Result r = collbench("compare " + base.string() + " " + cur.string());
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_NE(r.out.find("[FAIL] REGRESSION (P1): all_to_all"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\u00a7 Pairwise Bandwidth Test (identify slow pairs)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("AllReduce"), std::string::npos) << r.out;
}

TEST_F(AnalyzeInputs, AnNcclLogWithAKnownBadVersionIsNamedWithItsFixAndSource) {
  const fs::path logs = fs::path(COLLBENCH_FIXTURES) / "known-issues";
  Result r = collbench("analyze --instance-type p4d.24xlarge " + (logs / "nccl-2.19.4_efa.log").string());
  EXPECT_EQ(r.code, 0) << describe(r);  // a WARN P2: advisory
  EXPECT_NE(r.out.find("[WARN] KNOWN_BAD_VERSIONS (P2): NCCL 2.19.4+cuda12.2 in this log: NCCL 2.19.4 has a "
                       "performance regression"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("fix: move to NCCL 2.20.3 or newer (known issue nccl-2.19.4-performance-regression, "
                       "https://github.com/awslabs/awsome-distributed-ai/pull/217)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(issues_found(r.out), 1) << r.out;
  EXPECT_EQ(collbench("analyze --fail-on warn " + (logs / "nccl-2.19.4_efa.log").string()).code, 3);

  r = collbench("analyze --instance-type p4d.24xlarge " + (logs / "nccl-2.21.5_efa.log").string());
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[PASS] NO_KNOWN_BAD_VERSIONS"), std::string::npos) << r.out;

  r = collbench("analyze --known-issues none " + (logs / "nccl-2.19.4_efa.log").string());
  EXPECT_NE(r.out.find("[INFO] KNOWN_ISSUES_SKIPPED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("KNOWN_BAD_VERSIONS"), std::string::npos) << r.out;

  // A list of one's own that cannot be used: exit 2 naming it, nothing judged.
  const fs::path mine = dir_ / "known-issues.json";
  std::ofstream(mine) << R"({"schema": "collbench.known-issues/1", "issues": [{"id": "a", "when": {"nccl": {"from": "2.x"}},
    "tag": "WARN", "priority": "P1", "message": "m", "fix": "f", "source": "https://example.com/a"}]})";
  r = collbench("analyze --known-issues " + mine.string() + " " + (logs / "nccl-2.19.4_efa.log").string());
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find(mine.string() + ": issues[0] (id 'a').when.nccl.from '2.x' is not a version"), std::string::npos)
      << describe(r);
  EXPECT_EQ(r.out.find("KNOWN_BAD_VERSIONS"), std::string::npos) << r.out;
}
