// End to end: `collbench report` on documents real runs wrote; the Prometheus file passes promtool,
// every EMF line follows the specification; bad input exits 2 with nothing written.
#include "collbench_process.h"

#include <nlohmann/json.hpp>

#include "common/emf_spec.h"

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::Result;
using collbench::e2e::slurp;

class Report : public collbench::e2e::CollbenchTest {
 protected:
  // promtool's lint of a textfile-collector file: exit 0 and nothing said.
  void expect_promtool_accepts(const fs::path& prom) {
    const Result p = shell("promtool check metrics < " + prom.string());
    EXPECT_EQ(p.code, 0) << describe(p) << slurp(prom);
    EXPECT_EQ(p.out + p.err, "") << slurp(prom);
  }
  void expect_emf_follows_the_specification(const fs::path& emf) {
    std::istringstream lines(slurp(emf));
    std::size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n)
      EXPECT_EQ(collbench::test::emf_problems(line), std::vector<std::string>{}) << line;
    EXPECT_GT(n, 0u);
  }
};

TEST_F(Report, ARunAndAPreflightBecomeMetricsPromtoolAndTheEmfRulesAccept) {
  const fs::path run = dir_ / "run.json", pf = dir_ / "pf.json", prom = dir_ / "m.prom", emf = dir_ / "m.emf";
  ASSERT_EQ(collbench("run --backend mpi -b 1K -e 64K -n 5 --no-progress --json " + run.string(), 2).code, 0);
  const Result p = collbench("preflight --backend mpi --budget 40s -e 64K --no-color --json " + pf.string(), 2);
  ASSERT_TRUE(p.code == 0 || p.code == 3) << describe(p);
  const Result r = collbench("report " + run.string() + " " + pf.string() + " --prom " + prom.string() + " --emf " +
                             emf.string());
  ASSERT_EQ(r.code, 0) << describe(r);
  expect_promtool_accepts(prom);
  expect_emf_follows_the_specification(emf);
  const std::string text = slurp(prom);
  for (const char* series :
       {"collbench_bus_bandwidth_bytes_per_second{command=\"run\",op=\"all_reduce\",dtype=\"float\",redop=\"sum\","
        "placement=\"out_of_place\",scope=\"world\",size_bytes=\"65536\"} ",
        "collbench_bus_bandwidth_bytes_per_second{command=\"preflight\",phase=\"node\",op=\"all_reduce\"",
        "collbench_valid_until_timestamp_seconds{command=\"preflight\"} ",
        "collbench_phase_wall_seconds{command=\"preflight\",phase=\"pairs\",status=\"skipped\"} 0\n",
        "collbench_exit_code{command=\"run\"} 0\n", "collbench_last_run_timestamp_seconds{command=\"run\"} "})
    EXPECT_NE(text.find(series), std::string::npos) << series << "\n" << text;
}

TEST_F(Report, NcclTestsOutputIsReadAsAnalyzeReadsIt) {
  const Result r = collbench("report " + std::string(COLLBENCH_FIXTURES) +
                             "/nccl-tests/all_reduce_2x_p5.48xlarge.txt --prom -");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("collbench_bus_bandwidth_bytes_per_second{command=\"run\",op=\"all_reduce\""),
            std::string::npos)
      << r.out;
  std::ofstream(dir_ / "stdin.prom") << r.out;
  expect_promtool_accepts(dir_ / "stdin.prom");
}

TEST_F(Report, RunWritesItsPageWithHtmlAndRefusesAFolderThatIsNotThereBeforeMeasuring) {
  const fs::path page = dir_ / "run.html";
  const Result r = collbench("run --backend mpi -b 1K -e 16K -n 3 --no-progress --html " + page.string(), 2);
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string html = slurp(page);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("all_reduce float busbw, world scope"), std::string::npos);
  EXPECT_NE(html.find("all_to_all float busbw, world scope"), std::string::npos);
  const Result bad = collbench("run --backend mpi -e 16K --html /no/such/dir/p.html", 2);
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("--html /no/such/dir/p.html: the folder /no/such/dir does not exist"), std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.out.find("all_reduce"), std::string::npos) << "nothing measured: " << bad.out;
}

TEST_F(Report, BadInputIsRefusedByNameAndNothingIsWritten) {
  const fs::path run = dir_ / "run.json", prom = dir_ / "m.prom", emf = dir_ / "m.emf";
  ASSERT_EQ(collbench("run --backend mpi -b 1K -e 4K -n 3 --no-progress --json " + run.string(), 2).code, 0);
  std::ofstream(dir_ / "other.json") << R"({"schema": "someone.else/1"})";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases{
      {run.string(), "give -o FILE.html, --prom FILE or --emf FILE"},
      {run.string() + " -o " + (dir_ / "p.html").string() + " --prom " + (dir_ / "p.html").string(), "both name"},
      {(dir_ / "missing.json").string() + " --prom " + prom.string(), "missing.json"},
      {run.string() + " --prom /no/such/dir/m.prom",
       "--prom /no/such/dir/m.prom: the folder /no/such/dir does not exist"},
      {run.string() + " --prom " + dir_.string(), "is a folder"},
      {run.string() + " --prom - --emf -", "only one can go to standard output"},
      {run.string() + " " + run.string() + " --prom " + prom.string() + " --emf " + emf.string(),
       "one document per command"},
      {(dir_ / "other.json").string() + " --prom " + prom.string(), "someone.else/1"},
      {run.string() + " --emf " + emf.string() + " --emf-namespace a:b", "--emf-namespace"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = collbench("report " + c.args);
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(prom));
    EXPECT_FALSE(fs::exists(emf));
  }
}

}  // namespace
