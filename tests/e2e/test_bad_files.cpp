// End to end: a file given on the command line that is not what it should be (a baseline, a run to
// compare, report or derive from, a thresholds or known-issues file) is bad input: exit 2, the file
// named, nothing measured and nothing written; never std::terminate.
#include "collbench_process.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::Result;

using BadFiles = collbench::e2e::CollbenchTest;

const fs::path kGood = fs::path(COLLBENCH_FIXTURES) / "nccl-tests" / "all_reduce_2x_p4de.24xlarge.txt";

struct Bad {
  std::string text, says;
};

const std::vector<Bad> kBad{
    {R"({"schema":"collbench.run/1","cases":[1]})", "cases[0] is a number; a case must be an object"},
    {R"({"schema":"collbench.run/1","cases":[{"op":"all_reduce","bytes":"8"}]})",
     "cases[0]: bytes is a string; it must be a whole number"},
    {R"({"schema":"collbench.run/1","world":{"ranks":1e999},"cases":[]})", "out of range"},
    {"{\"schema\":\"collbench.run.partial/1\"}\n{\"case\":1e999}\n{}\n", "line 2 is not JSON"},
    {R"({"results":[{"size":8,"out_of_place":{"bus_bw":"1"}}]})", "results[0]: bus_bw is a string"},
};

// What no error of the readers may look like: the C++ runtime's own end.
void expect_clean_refusal(const Result& r, const std::string& file, const std::string& says) {
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("collbench: error: '" + file + "': "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
}

TEST_F(BadFiles, RunWithABadBaselineExitsTwoBeforeMeasuringAndWritesNothing) {
  const fs::path out = dir_ / "never.json";
  for (std::size_t i = 0; i < kBad.size(); ++i) {
    SCOPED_TRACE(kBad[i].text);
    const std::string b = (dir_ / ("B" + std::to_string(i))).string();
    std::ofstream(b) << kBad[i].text;
    // The first under mpirun with two ranks, the rest as a singleton (faster; the same check).
    const Result r = collbench("run --backend mpi -b 8 -e 64 --no-progress --baseline " + b + " --json " + out.string(),
                               i == 0 ? 2 : 0);
    expect_clean_refusal(r, b, kBad[i].says);
    EXPECT_EQ(r.out.find("all_reduce"), std::string::npos) << "nothing measured: " << r.out;
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  }
}

TEST_F(BadFiles, CompareAnalyzeAndReportRefuseABadFileByName) {
  const std::string prom = (dir_ / "m.prom").string();
  for (std::size_t i = 0; i < kBad.size(); ++i) {
    SCOPED_TRACE(kBad[i].text);
    const std::string b = (dir_ / ("B" + std::to_string(i))).string();
    std::ofstream(b) << kBad[i].text;
    expect_clean_refusal(collbench("compare " + b + " " + kGood.string()), b, kBad[i].says);
    expect_clean_refusal(collbench("compare " + kGood.string() + " " + b), b, kBad[i].says);
    expect_clean_refusal(collbench("analyze " + b), b, kBad[i].says);
    expect_clean_refusal(collbench("report " + b + " --prom " + prom), b, kBad[i].says);
    EXPECT_FALSE(fs::exists(prom));
    if (i < 3) expect_clean_refusal(collbench("thresholds derive --instance-type x.large " + b), b, kBad[i].says);
  }
}

// A good baseline is read the same way when the run starts as when the command line was read: an
// nccl-tests output, which compare takes, was refused there as "not JSON".
TEST_F(BadFiles, RunTakesAnNcclTestsOutputAsItsBaseline) {
  const Result r = collbench("run --backend mpi --ops all_reduce -b 1K -e 4K -n 3 --no-progress --thresholds none "
                             "--baseline " + kGood.string(), 2);
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("BASELINE_MISMATCH: world.ranks: 16 in the baseline, 2 now"), std::string::npos) << r.out;
}

// A file with nothing collbench reads in it makes no report of an empty run.
TEST_F(BadFiles, ReportRefusesAFileWithNothingInIt) {
  const std::string nothing = (dir_ / "nothing.txt").string(), prom = (dir_ / "m.prom").string();
  std::ofstream(nothing) << "1e999\n";
  const Result r = collbench("report " + nothing + " --prom " + prom);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("'" + nothing + "': no collbench document, nccl-tests table or collbench journal"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(prom));
}

TEST_F(BadFiles, ThresholdsAndKnownIssuesFilesAreRefusedBeforeMeasuring) {
  const std::string t = (dir_ / "t.json").string(), k = (dir_ / "k.json").string();
  std::ofstream(t) << "1\n2";
  std::ofstream(k) << R"({"schema": "collbench.known-issues/1", "issues": [1e999]})";
  for (const auto& [option, file] : {std::pair{"--thresholds ", t}, std::pair{"--known-issues ", k}}) {
    const Result r = collbench("run --backend mpi -b 8 -e 64 --no-progress " + std::string(option) + file, 2);
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("all_reduce"), std::string::npos) << r.out;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  }
}

}  // namespace
