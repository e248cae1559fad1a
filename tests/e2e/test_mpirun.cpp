// End to end: the real collbench binary under a real mpirun, on the mpi backend.
#include "collbench_process.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "reports/analyze/nccl_text_parser.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using collbench::e2e::describe;
using collbench::e2e::Result;
using collbench::e2e::slurp;

std::string hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

class E2E : public collbench::e2e::CollbenchTest {
 protected:
  Result run(int np, const std::string& args) { return collbench(args, np); }
};

const char* kSweep = "run --ops all -b 8 -e 32K -f 8 -n 3 -w 1 --no-progress";

}  // namespace

// Every op, both placements, 1 to 4 ranks: exact results, a well-formed document, and a text
// table that reads back with the same numbers.
TEST_F(E2E, EveryOpBothPlacementsOneToFourRanks) {
  for (int np : {1, 2, 3, 4}) {
    SCOPED_TRACE("np=" + std::to_string(np));
    const fs::path jpath = dir_ / ("run" + std::to_string(np) + ".json");
    const Result r = run(np, std::string(kSweep) + " --json " + jpath.string());
    ASSERT_EQ(r.code, 0) << describe(r);
    EXPECT_FALSE(fs::exists(jpath.string() + ".partial"));

    const json doc = json::parse(slurp(jpath));
    EXPECT_EQ(doc["schema"], "collbench.run/1");
    EXPECT_EQ(doc["world"]["ranks"], np);
    EXPECT_EQ(doc["world"]["backend"], "mpi");
    EXPECT_TRUE(doc["world"]["versions"].contains("mpi"));
    ASSERT_EQ(doc["world"]["nodes"].size(), 1u);
    EXPECT_EQ(doc["world"]["nodes"][0]["name"], hostname());
    EXPECT_EQ(doc["world"]["nodes"][0]["ranks"].size(), static_cast<std::size_t>(np));
    EXPECT_EQ(doc["complete"], true);
    EXPECT_EQ(doc["verdict"]["exit_code"], 0);
    const auto& cases = doc["cases"];
    ASSERT_EQ(cases.size(), 6u * 5u * 2u);  // ops x sizes (8, 64, 512, 4K, 32K) x placements
    for (const auto& c : cases) {
      EXPECT_EQ(c["wrong"], 0) << c.dump();
      EXPECT_EQ(c["time_us"]["samples"], 3);
      EXPECT_EQ(c["rank_median_us"].size(), static_cast<std::size_t>(np));
      EXPECT_EQ(c["group"]["ranks"].size(), static_cast<std::size_t>(np));
      EXPECT_LE(c["time_us"]["min"].get<double>(), c["time_us"]["median"].get<double>());
      EXPECT_LE(c["time_us"]["median"].get<double>(), c["time_us"]["max"].get<double>());
    }

    const auto tables = collbench::report::parse_nccl_tests(r.out);
    ASSERT_EQ(tables.size(), 6u) << r.out;
    std::size_t k = 0;
    for (const auto& t : tables) {
      ASSERT_EQ(t.rows.size(), 5u) << t.collective;
      EXPECT_EQ(t.out_of_bounds, 0);
      for (const auto& row : t.rows) {
        const auto& oop = cases[k++];
        const auto& ip = cases[k++];
        EXPECT_EQ(oop["op"], t.collective);
        EXPECT_EQ(row.bytes, oop["bytes"].get<std::uint64_t>());
        EXPECT_EQ(row.count, oop["count"].get<std::uint64_t>());
        EXPECT_EQ(oop["placement"], "out_of_place");
        EXPECT_EQ(ip["placement"], "in_place");
        EXPECT_NEAR(row.out_of_place->busbw_gbs, oop["busbw_gbs"].get<double>(), 0.0051);
        EXPECT_NEAR(row.in_place->algbw_gbs, ip["algbw_gbs"].get<double>(), 0.0051);
        EXPECT_EQ(row.in_place->wrong, 0);
      }
    }
    EXPECT_NE(r.out.find("[PASS] RESULTS_EXACT"), std::string::npos) << r.out;
  }
}

// Groups measured concurrently: on one node, rail i is local rank i alone and the node group is
// every rank; each group gets its own cases and tables.
TEST_F(E2E, NodeAndRailScopesSplitTheRanks) {
  for (const auto& [scope, groups] : {std::pair{"rail", 4}, std::pair{"node", 1}}) {
    const fs::path jpath = dir_ / (std::string(scope) + ".json");
    const Result r = run(4, std::string("run --ops all_reduce,all_gather -b 1K -e 4K -f 4 -n 2 --no-progress --scope ") +
                                scope + " --json " + jpath.string());
    ASSERT_EQ(r.code, 0) << describe(r);
    const json doc = json::parse(slurp(jpath));
    ASSERT_EQ(doc["cases"].size(), static_cast<std::size_t>(2 * 2 * 2 * groups));  // ops x sizes x placements
    std::set<int> ids;
    for (const auto& c : doc["cases"]) {
      EXPECT_EQ(c["group"]["scope"], scope);
      EXPECT_EQ(c["group"]["ranks"].size(), static_cast<std::size_t>(4 / groups));
      EXPECT_EQ(c["wrong"], 0);
      ids.insert(c["group"]["id"].get<int>());
    }
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(groups));
    EXPECT_EQ(collbench::report::parse_nccl_tests(r.out).size(), static_cast<std::size_t>(2 * groups)) << r.out;
  }
}

TEST_F(E2E, CorruptedResultIsCountedAndFailsTheRun) {
  const fs::path jpath = dir_ / "bad.json";
  const Result r = run(2, "run --ops all_reduce -b 1K -e 1K -n 2 --no-progress --inject corrupt:1:1 --json " +
                              jpath.string());
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_NE(r.out.find("# Out of bounds values : 1 FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[FAIL] WRONG_RESULTS (P0)"), std::string::npos) << r.out;
  const json doc = json::parse(slurp(jpath));
  EXPECT_EQ(doc["cases"][0]["wrong"], 0);
  EXPECT_EQ(doc["cases"][1]["wrong"], 1);
  EXPECT_EQ(doc["verdict"]["exit_code"], 3);
  bool reported = false;
  for (const auto& f : doc["findings"]) {
    if (f["code"] != "WRONG_RESULTS") continue;
    reported = f["tag"] == "FAIL";
    // Rank 1 alone counted the corrupted element: a script can act on it without the message.
    EXPECT_EQ(f["subject"], json({{"kind", "rank"}, {"hosts", {hostname()}}, {"ranks", {1}}})) << f.dump();
  }
  EXPECT_TRUE(reported) << doc["findings"].dump();
  EXPECT_EQ(doc["cases"][1]["wrong_ranks"], json({1}));
  for (const auto& f : doc["findings"])
    EXPECT_TRUE(f.contains("subject") && f["subject"].contains("kind")) << f.dump();
}

TEST_F(E2E, HungRankIsNamedAndTheResultsSoFarAreKept) {
  const fs::path jpath = dir_ / "hang.json";
  const Result r = run(3, "run --ops all_reduce -b 8 -e 64 -f 8 -n 2 --no-progress --timeout 2 --inject hang:2:2 "
                          "--json " + jpath.string());
  EXPECT_EQ(r.code, 1) << describe(r);
  const std::string host = hostname();
  // The hung rank says it never started the case; the others say they waited for it.
  EXPECT_NE(r.err.find("COLLECTIVE_HANG (P0): rank 2 (host " + host + "): all_reduce float out-of-place 64 B, setting up"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("rank 0 (host " + host + "): all_reduce float out-of-place 64 B, waiting for every rank"),
            std::string::npos)
      << r.err;
  const json doc = json::parse(slurp(jpath));
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["cases"].size(), 2u);  // 8 B in both placements finished before the hang
  EXPECT_EQ(doc["findings"][0]["code"], "COLLECTIVE_HANG");
  // Rank 0 asked the others where they wait (through the launcher): rank 2 is still setting up.
  EXPECT_EQ(doc["findings"][0]["subject"], json({{"kind", "rank"}, {"hosts", {host}}, {"ranks", {2}}}))
      << doc["findings"][0].dump();
  EXPECT_NE(doc["findings"][0]["message"].get<std::string>().find(
                "rank 2 (host " + host + ") is still at all_reduce float out-of-place 64 B, setting up"),
            std::string::npos)
      << doc["findings"][0].dump();
  EXPECT_EQ(doc["verdict"]["exit_code"], 1);
}

// A fixed -n whose calls together take longer than --timeout is measured in pieces, each under the
// watchdog, not called a hang. The test above is its power test: a rank that stops is still named
// within --timeout.
TEST_F(E2E, FixedCountLongerThanTheTimeoutIsMeasuredNotCalledAHang) {
  // --timeout 6: setting up two 128 MiB buffers, and the first call alone, also run under the
  // watchdog; under the sanitizers on a loaded machine set-up took over 2 s, and at a load of 12 on
  // 2 cores one call took over 3 s.
  const std::string one_case = "run --ops all_reduce -b 128M -e 128M -w 2 -c 0 --placement out --no-progress --timeout 6 ";
  // The count fits this machine: 4 calls first, then 3 times as many as --timeout holds. A fixed
  // -n 240 (for calls of 25 ms) took a minute here.
  const fs::path probe = dir_ / "probe.json";
  const Result p = run(2, one_case + "-n 4 --json " + probe.string());
  ASSERT_TRUE(fs::exists(probe)) << describe(p);
  const double call_us = json::parse(slurp(probe))["cases"].at(0)["time_us"]["mean"].get<double>();
  ASSERT_GT(call_us, 0.0);
  const int n = std::max(10, static_cast<int>(std::ceil(3 * 6e6 / call_us)));
  const fs::path jpath = dir_ / "long.json";
  const Result r = run(2, one_case + "-n " + std::to_string(n) + " --json " + jpath.string());
  const json doc = json::parse(slurp(jpath));
  for (const auto& f : doc["findings"]) EXPECT_NE(f["code"], "COLLECTIVE_HANG") << describe(r);
  EXPECT_EQ(doc["complete"], true) << describe(r);
  ASSERT_EQ(doc["cases"].size(), 1u);
  const auto& t = doc["cases"][0]["time_us"];
  EXPECT_EQ(t["samples"], n);
  // The property was exercised: the n timed calls alone took longer than --timeout.
  EXPECT_GT(t["mean"].get<double>() * n, 6e6) << t.dump() << "\n" << n << " calls, " << call_us << " us each in the probe";
}

TEST_F(E2E, KilledRankIsNamedAndTheResultsSoFarAreKept) {
  const fs::path jpath = dir_ / "kill.json";
  const Result r = run(3, "run --ops all_reduce -b 8 -e 64 -f 8 -n 2 --no-progress --inject kill:1:2 --json " +
                              jpath.string());
  EXPECT_NE(r.code, 0) << describe(r);
  EXPECT_NE(r.err.find("rank 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("on node " + hostname()), std::string::npos) << r.err;
  // mpirun ends the other ranks with SIGTERM: rank 0 turns the journal into the document
  // ("complete": false); when SIGKILL comes first (a loaded host), the journal itself is left, and
  // when it comes between the document's rename and the journal's removal, both are (the document
  // is written whole before the journal goes, so it is the one that counts). Either holds the two
  // cases measured before the kill.
  const bool document = fs::exists(jpath), journal = fs::exists(jpath.string() + ".partial");
  ASSERT_TRUE(document || journal) << "one of them";
  if (document) {
    const json doc = json::parse(slurp(jpath));
    EXPECT_EQ(doc["complete"], false);
    ASSERT_EQ(doc["cases"].size(), 2u);
    EXPECT_EQ(doc["cases"][1]["placement"], "in_place");
    return;
  }
  std::istringstream partial(slurp(jpath.string() + ".partial"));
  std::vector<json> lines;
  for (std::string l; std::getline(partial, l);) lines.push_back(json::parse(l));
  ASSERT_EQ(lines.size(), 3u);  // header + the two cases measured before the kill
  EXPECT_EQ(lines[0]["schema"], "collbench.run.partial/1");
  EXPECT_EQ(lines[2]["case"]["placement"], "in_place");
}

// One rank fails backend set-up between the set-up collectives: every rank leaves at once (no
// hang until --timeout), exit 1, the failing rank and its host named, no results document.
TEST_F(E2E, RankFailingBackendSetUpIsNamedAndNobodyWaits) {
  for (const char* backend : {"auto", "nccl", "mpi"}) {
    SCOPED_TRACE(backend);
    const fs::path jpath = dir_ / (std::string("setup-") + backend + ".json");
    const auto start = std::chrono::steady_clock::now();
    const Result r = run(2, std::string("run --backend ") + backend +
                                " -b 8 -e 8 -n 1 --no-progress --timeout 30 --inject setup:1 --json " + jpath.string());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.code, 1) << describe(r);
    EXPECT_LT(seconds, 20.0) << "a set-up failure must not wait for --timeout\n" << describe(r);
    EXPECT_NE(r.err.find("collbench: error on rank 1 (host " + hostname() + "): "), std::string::npos) << r.err;
    // Without a GPU every rank fails --backend nccl's first step; elsewhere rank 1 alone fails, by the hook.
    if (std::string(backend) != "nccl") {
      EXPECT_NE(r.err.find("rank 1 (host " + hostname() + "): injected set-up failure"), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("error on rank 0"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(jpath));
    EXPECT_FALSE(fs::exists(jpath.string() + ".partial"));
    EXPECT_EQ(r.out.find("HEALTHY"), std::string::npos) << r.out;
  }
}

TEST_F(E2E, BadInputExitsTwoAndWritesNothing) {
  const fs::path jpath = dir_ / "never.json";
  const std::string json_arg = " --json " + jpath.string();
  struct Bad {
    int np;
    std::string args, mentions;
  };
  const std::vector<Bad> cases{
      {0, "run -b 10X", "-b '10X'"},
      {0, "run --ops all_reduce,gather", "gather"},
      {0, "run -d float128", "float128"},
      {2, "run -b 1M -e 1K", "-b 1 MiB is larger than -e 1 KiB"},
      {2, "run -f 1 -b 8 -e 64", "-f 1"},
      {2, "run --backend mpi --ops all_reduce -d half -b 8 -e 64", "cannot reduce half"},
      {2, "run --backend mpi --ops all_reduce -d double -b 15G -e 15G", "-e too large"},
      {2, "run --backend mpi -r 5 --ops broadcast -b 8 -e 8", "-r 5"},
  };
  for (const auto& b : cases) {
    const Result r = run(b.np, b.args + json_arg);
    EXPECT_EQ(r.code, 2) << b.args << "\n" << describe(r);
    EXPECT_NE(r.err.find(b.mentions), std::string::npos) << b.args << "\n" << r.err;
    EXPECT_FALSE(fs::exists(jpath)) << b.args;
    EXPECT_FALSE(fs::exists(jpath.string() + ".partial")) << b.args;
  }
}

TEST_F(E2E, NcclBackendWithoutGpuCannotRun) {
  const Result r = run(1, "run --backend nccl -b 8 -e 8");
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_NE(r.err.find("nccl"), std::string::npos) << r.err;
}

TEST_F(E2E, AdaptiveIterationsStopByNoiseOrTimeCap) {
  const fs::path jpath = dir_ / "auto.json";
  const Result r = run(2, "run --ops all_reduce -b 1K -e 4K -f 4 -n auto --min-samples 5 --max-time 0.5 "
                          "--no-progress --json " + jpath.string());
  ASSERT_EQ(r.code, 0) << describe(r);
  const json doc = json::parse(slurp(jpath));
  EXPECT_EQ(doc["options"]["iters"], "auto");
  for (const auto& c : doc["cases"]) {
    EXPECT_GE(c["time_us"]["samples"].get<int>(), 5);
    const std::string why = c["stop_reason"];
    EXPECT_TRUE(why == "converged" || why == "time_cap") << why;
  }
}

TEST_F(E2E, HelpExplainsEveryOption) {
  const Result r = run(0, "run --help");
  EXPECT_EQ(r.code, 0);
  for (const char* opt : {"--ops", "-b", "-e", "-f", "-i", "-d", "-o", "-w", "-n", "-c", "--rank-reduce", "--backend",
                          "-g", "--timeout", "--json", "Exit codes"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}
