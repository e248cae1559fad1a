// End to end: compare must find what is there and nothing else. Each false-alarm check has its
// power check beside it: a copy of a real output (a published nccl-tests table, or a 2-rank run
// made here) made slower at known sizes must be a REGRESSION at exactly those sizes.
#include "collbench_process.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::Result;
using collbench::e2e::slurp;

const fs::path kFixtures = fs::path(COLLBENCH_FIXTURES) / "nccl-tests";
constexpr std::uint64_t kMiB = 1 << 20;

// The (size, placement) of every [FAIL] REGRESSION line.
std::set<std::pair<std::string, std::string>> regressions(const std::string& out) {
  static const std::regex kLine(R"(\[FAIL\] REGRESSION \(P1\): \S+ \S+ (\S+) at (\S+ \S+?):)");
  std::set<std::pair<std::string, std::string>> found;
  for (std::sregex_iterator it(out.begin(), out.end(), kLine), end; it != end; ++it)
    found.insert({(*it)[2].str(), (*it)[1].str()});
  return found;
}

std::set<std::pair<std::string, std::string>> both_placements(std::initializer_list<const char*> sizes) {
  std::set<std::pair<std::string, std::string>> out;
  for (const char* s : sizes) out.insert({s, "out_of_place"}), out.insert({s, "in_place"});
  return out;
}

class ComparePower : public collbench::e2e::CollbenchTest {
 protected:
  // scripts/slow-copy.py: `in` with every case of [lo, hi] bytes (of `placement`, or both) taking
  // `factor` times as long.
  fs::path slow_copy(const fs::path& in, const std::string& name, double factor, std::uint64_t lo,
                     std::uint64_t hi, const std::string& placement = "") {
    const fs::path out = dir_ / name;
    const Result r = shell(fmt::format("python3 {}/scripts/slow-copy.py {} {} {} {} {}{}", COLLBENCH_SOURCE,
                                       in.string(), out.string(), factor, lo, hi,
                                       placement.empty() ? "" : " --placement " + placement));
    EXPECT_EQ(r.code, 0) << describe(r);
    return out;
  }
  Result compare(const fs::path& base, const fs::path& cur) {
    return collbench("compare --no-color " + base.string() + " " + cur.string());
  }
};

}  // namespace

// A published 2x p5.48xlarge table whose baseline has a one-placement blip (in-place 1 GiB 14%
// slow, as a protocol switch or a hiccup leaves), and a copy 12% slower at 512 MiB-2 GiB only: an
// AMI update that moved a protocol threshold looks like this.
TEST_F(ComparePower, ABandOfThreeSizesNextToABlipIsFoundExactly) {
  const fs::path bf = slow_copy(kFixtures / "all_reduce_2x_p5.48xlarge.txt", "base.txt", 1 / 0.86, 1024 * kMiB,
                                1024 * kMiB, "in_place");
  const Result same = compare(bf, bf);
  EXPECT_EQ(same.code, 0) << describe(same);
  EXPECT_NE(same.out.find("[PASS] NO_REGRESSION"), std::string::npos) << same.out;

  const fs::path cf = slow_copy(bf, "band.txt", 1 / 0.88, 512 * kMiB, 2048 * kMiB);
  const Result r = compare(bf, cf);
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(regressions(r.out), both_placements({"512 MiB", "1 GiB", "2 GiB"})) << r.out;
}

TEST_F(ComparePower, OneSizeTwiceAsSlowIsFoundThere) {
  const fs::path bf = kFixtures / "all_reduce_2x_p5.48xlarge.txt";
  const Result r = compare(bf, slow_copy(bf, "single.txt", 2.0, 256 * kMiB, 256 * kMiB));
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(regressions(r.out), both_placements({"256 MiB"})) << r.out;
}

TEST_F(ComparePower, TenPercentAtEveryLargeSizeIsFoundAtEach) {
  const fs::path bf = kFixtures / "all_reduce_2x_p5.48xlarge.txt";
  const Result r = compare(bf, slow_copy(bf, "broad.txt", 1 / 0.9, 64 * kMiB, std::uint64_t{1} << 40));
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(regressions(r.out), both_placements({"64 MiB", "128 MiB", "256 MiB", "512 MiB", "1 GiB", "2 GiB",
                                                 "4 GiB", "8 GiB", "16 GiB"}))
      << r.out;
}

// A 2-rank run on the mpi backend made here, compared with itself and with a copy whose 4 MiB
// case takes twice as long.
TEST_F(ComparePower, ARunMadeHereIsTheSameAsItselfAndNotAsItsSlowerCopy) {
  const fs::path run = dir_ / "run.json";
  const Result made = collbench("run --backend mpi --ops all_reduce -b 256K -e 16M -n 30 --no-progress "
                                "--thresholds none --json " + run.string(), 2);
  ASSERT_TRUE(made.code == 0 || made.code == 3) << describe(made);
  // The noise model is judged on the run's own samples; whether the host was busy has tests of its own.
  auto doc = nlohmann::json::parse(slurp(run));
  for (auto& c : doc["cases"]) c.erase("cpu_wait_share");
  const fs::path base = dir_ / "base.json";
  std::ofstream(base) << doc.dump();
  const Result same = compare(base, base);
  EXPECT_EQ(same.code, 0) << describe(same);
  EXPECT_NE(same.out.find("[PASS] NO_REGRESSION"), std::string::npos) << same.out;

  const Result r = compare(base, slow_copy(base, "slow.json", 2.0, 4 * kMiB, 4 * kMiB));
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_EQ(regressions(r.out), both_placements({"4 MiB"})) << r.out;
}
