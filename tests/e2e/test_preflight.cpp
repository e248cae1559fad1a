// End to end: `collbench preflight` under a real mpirun on one machine.
#include "collbench_process.h"

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::kOpenMpiHere;
using collbench::e2e::Result;
using collbench::e2e::slurp;

using Preflight = collbench::e2e::CollbenchTest;

TEST_F(Preflight, FourRanksOnOneNodeAccountForEveryPhase) {
  const fs::path json = dir_ / "pf.json";
  const Result r = collbench("preflight --backend mpi --budget 40s -e 64K --no-color --json " + json.string(), 4);
  ASSERT_EQ(r.code, 0) << describe(r);
  // The plan comes before anything is measured, with a share or a reason for every phase.
  const auto plan = r.out.find("# Preflight: 1 node(s), 4 ranks; budget 40 s");
  ASSERT_NE(plan, std::string::npos) << r.out;
  EXPECT_LT(plan, r.out.find("phase 2 of 5: node")) << r.out;
  EXPECT_NE(r.out.find("4. pairs       skipped: one node"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# preflight: GO in "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(json.string() + ".partial"));

  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["schema"], "collbench.preflight/1");
  EXPECT_EQ(doc["ranks"], 4);
  EXPECT_EQ(doc["nodes"].size(), 1u);
  EXPECT_GT(doc["valid_until"].get<std::string>(), doc["finished_at"].get<std::string>());
  EXPECT_EQ(doc["verdict"]["exit_code"], 0);
  EXPECT_EQ(doc["verdict"]["go"], true);
  ASSERT_EQ(doc["phases"].size(), 5u);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"environment", "ran"}, {"node", "ran"}, {"world", "skipped"}, {"pairs", "skipped"}, {"fabric", "skipped"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& p = doc["phases"][i];
    EXPECT_EQ(p["name"], expected[i].first);
    EXPECT_EQ(p["status"], expected[i].second) << p.dump();
    if (expected[i].second == "skipped") {
      EXPECT_TRUE(p["reason"].is_string()) << p.dump();
    }
  }
  // The node sweep's own run document: both ops, every size up to -e, one node group of 4 ranks.
  const auto& node = doc["phases"][1];
  EXPECT_GT(node["findings"].get<int>(), 0);
  EXPECT_GT(node["wall_s"].get<double>(), 0);
  const auto& cases = node["document"]["cases"];
  ASSERT_EQ(cases.size(), 2u * 7);  // all_reduce and all_to_all, 1 KiB to 64 KiB
  for (const auto& c : cases) {
    EXPECT_EQ(c["placement"], "out_of_place");
    EXPECT_EQ(c["wrong"], 0) << c.dump();
  }
  // The environment's findings are the environment phase's, each finding tagged with its phase.
  bool env_finding = false;
  for (const auto& f : doc["findings"]) {
    ASSERT_TRUE(f["phase"].is_string());
    env_finding |= f["phase"] == "environment" && f["code"] == "VERSION_INFO";
  }
  EXPECT_TRUE(env_finding) << doc["findings"].dump();
}

TEST_F(Preflight, BadInputExitsTwoBeforeAnythingRuns) {
  for (const std::string args : {"--skip nodes", "--budget 0", "--valid-for soon", "-e 3"}) {
    const Result r = collbench("preflight --backend mpi " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << describe(r);
    EXPECT_NE(r.err.find("collbench: error:"), std::string::npos) << args << "\n" << describe(r);
    EXPECT_EQ(r.out.find("# Preflight:"), std::string::npos) << args;
  }
  const Result r = collbench("preflight --backend mpi --json " + (dir_ / "missing" / "pf.json").string(), 2);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("--json"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("phase 2 of 5"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
  const Result folder = collbench("preflight --backend mpi --json " + dir_.string(), 2);
  EXPECT_EQ(folder.code, 2) << describe(folder);
  EXPECT_NE(folder.err.find("is a folder"), std::string::npos) << describe(folder);
  EXPECT_FALSE(fs::exists(dir_ / ".partial"));
}

TEST_F(Preflight, NothingLeftToRunIsNotAGo) {
  const Result r = collbench("preflight --backend mpi --skip node,world,pairs,fabric --no-color", 2);
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("[WARN] PREFLIGHT_NOTHING_RAN"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("HEALTHY"), std::string::npos) << r.out;
}

// Inside a real terminal (util-linux `script` gives mpirun a pseudo-terminal), rank 0 shows its
// progress line and colours its tags; into a file, neither (the other tests).
TEST_F(Preflight, ProgressAndColourOnARealTerminal) {
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux 'script' not installed";
  const std::string inner = std::string("env ") + kOpenMpiHere + "TERM=xterm " +
                            COLLBENCH_MPIEXEC + " -np 2 " + COLLBENCH_BIN + " run --backend mpi -b 8 -e 1K";
  const fs::path typescript = dir_ / "typescript";
  const int status = std::system(("script -qec '" + inner + "' " + typescript.string() + " >/dev/null 2>&1 </dev/null").c_str());
  const std::string seen = slurp(typescript);
  ASSERT_EQ(WEXITSTATUS(status), 0) << seen;
  EXPECT_NE(seen.find("\r\033[K[1/"), std::string::npos) << "no progress line:\n" << seen;
  EXPECT_NE(seen.find("\033[0;32m[PASS]\033[0m"), std::string::npos) << "no colour on the tags:\n" << seen;
}

}  // namespace
