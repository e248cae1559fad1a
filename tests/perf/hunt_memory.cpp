// Rank 0's peak memory at scale, each step in a fresh process so one step's peak does not hide
// another's: the attribution and the hunt document of a 4,096-node hunt (the screen schedule and
// its confirmation, 3 samples a pair, one slow node and one slow link), and the preflight document
// of 16,384 ranks (2,048 nodes of 8: a run phase of 30 sizes and a hunt phase of the 2,048 nodes).
// Prints the growth of the peak resident set (VmHWM) over what was resident before the step, in
// MiB. Usage: hunt_memory [hunt|preflight]  (neither: both, each in a child process)
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include "tests/perf/simulated_hunt.h"
#include "bench/schedules.h"
#include "reports/core/case_summary.h"
#include "reports/core/json_report.h"
#include "reports/hunt/hunt_json.h"
#include "reports/pairs/attribution.h"
#include "reports/preflight/preflight_json.h"

namespace {

using namespace collbench;

double status_mib(const std::string& field) {  // a "VmXXX:   1234 kB" line of /proc/self/status
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024;
  return -1;
}

// Resets the peak to what is resident now (Linux: "5" to clear_refs).
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// A hunt of n nodes on the screen schedule with its confirmation, as rank 0 holds it.
report::HuntRecord hunt_record(int n) {
  micro::SimulatedHunt hunt(n);
  report::HuntRecord& record = hunt.record;
  const Schedule s = screen_schedule(n);
  auto rates = [&](double base) { return hunt.rates(base); };
  for (int r = 0; r < static_cast<int>(s.size()); ++r) {
    record.rounds.push_back({"pairs", r, 1.0, s[r].pairs});
    for (const auto& [a, b] : s[r].pairs)
      record.samples.push_back({a, b, r, rates((a == 17 || b == 17) ? 40.0 : (a == 100 && b == 101) ? 50.0 : 100.0)});
  }
  const int confirm = static_cast<int>(s.size());
  record.rounds.push_back({"confirm", confirm, 1.0, {{17, 500}, {100, 101}}});
  record.samples.push_back({17, 500, confirm, rates(40.0), true});
  record.samples.push_back({100, 101, confirm, rates(50.0), true});
  return std::move(record);
}

report::AttributionOptions confirmed() {
  report::AttributionOptions o;
  o.require_confirmation = true;
  return o;
}

int hunt() {
  constexpr int kNodes = 4096;
  const report::HuntRecord record = hunt_record(kNodes);
  const double before = status_mib("VmRSS");
  reset_peak();
  const report::Attribution a = report::attribute(record.samples, kNodes, confirmed());
  const double attributed = status_mib("VmHWM") - before;
  const std::string text = report::hunt_document(record, a, {}, 3).dump();
  std::printf("hunt of %d nodes (%zu samples): attribution %.0f MiB, attribution + document %.0f MiB "
              "(document %.1f MiB as text)\n",
              kNodes, record.samples.size(), attributed, status_mib("VmHWM") - before,
              static_cast<double>(text.size()) / (1 << 20));
  return 0;
}

int preflight() {
  constexpr int kRanks = 16384, kPerNode = 8, kNodes = kRanks / kPerNode, kIters = 20, kSizes = 30;
  std::mt19937 gen(1);
  std::lognormal_distribution<double> noise(0.0, 0.1);
  report::RunHeader header;
  header.world.ranks = kRanks;
  for (int v = 0; v < kNodes; ++v) {
    header.world.nodes.push_back({"node" + std::to_string(v), {}});
    for (int r = v * kPerNode; r < (v + 1) * kPerNode; ++r) header.world.nodes.back().ranks.push_back(r);
  }
  std::vector<std::vector<double>> samples(kRanks, std::vector<double>(kIters));
  const report::HuntRecord record = hunt_record(kNodes);
  const double before = status_mib("VmRSS");
  reset_peak();
  // The run phase: each size summarised from every rank's iterations (the samples are one size's,
  // reused: rank 0 holds one case's at a time), then the documents.
  std::vector<report::CaseResult> cases;
  for (int size = 0; size < kSizes; ++size) {
    for (auto& r : samples)
      for (auto& x : r) x = 1e-3 * noise(gen);
    report::RawCase raw;
    raw.op = "all_reduce";
    raw.bytes = std::uint64_t{1} << size;
    raw.busbw_factor = 2.0 * (kRanks - 1) / kRanks;
    raw.samples_s = &samples;
    cases.push_back(report::summarize_case(raw, RankReduce::Mean, header.world.nodes));
  }
  report::PreflightRecord r;
  r.ranks = kRanks;
  for (const auto& node : header.world.nodes) r.hosts.push_back(node.name);
  r.phases.push_back({"run", "ran", "", 600, 300, {}, report::run_document(header, cases, {}, {})});
  const report::Attribution a = report::attribute(record.samples, kNodes, confirmed());
  r.phases.push_back({"pairs", "ran", "", 600, 300, {}, report::hunt_document(record, a, {}, 0)});
  const std::string text = report::preflight_document(r, {}, 0).dump();
  std::printf("preflight of %d ranks (%d nodes; %d sizes, a hunt of the nodes): document %.0f MiB "
              "(%.1f MiB as text)\n",
              kRanks, kNodes, kSizes, status_mib("VmHWM") - before, static_cast<double>(text.size()) / (1 << 20));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "hunt") return hunt();
  if (what == "preflight") return preflight();
  if (!what.empty()) {
    std::fprintf(stderr, "usage: hunt_memory [hunt|preflight]\n");
    return 2;
  }
  int failed = 0;
  for (const char* step : {"hunt", "preflight"}) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      const int rc = step == std::string("hunt") ? hunt() : preflight();
      std::fflush(stdout);
      _exit(rc);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  return failed ? 1 : 0;
}
