// Reading NCCL Inspector logs: one line's parse, and a whole simulated job read and joined
// (records/s on one core; peak resident memory and the join window's high-water mark).
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>

#include "reports/inspector/inspector_job.h"
#include "reports/inspector/inspector_record.h"
#include "tests/inspector/simulated_job.h"

namespace {

namespace fs = std::filesystem;
namespace sim = collbench::inspector_sim;
using namespace collbench::report::inspector;

void BM_ParseLine(benchmark::State& state) {
  sim::Line l;
  l.comm_id = "0x7f8c496ae9f661", l.rank = 2, l.n_ranks = 64, l.nnodes = 8, l.dump_ts_us = 1748030377748202;
  l.hostname = "node-002", l.pid = 1639453, l.coll = "AllReduce", l.sn = 1407, l.bytes = 67108864;
  l.exec_us = 61974, l.algbw_gbs = 277.210914, l.busbw_gbs = 485.119099;
  const std::string line = sim::format_line(l);
  Record r;
  std::string_view err;
  for (auto _ : state) benchmark::DoNotOptimize(parse_line(line, r, err));
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(line.size() + 1));
}

// A generated job of `hosts` x 8 ranks, written under the temp directory.
std::string write_job(int hosts, int collectives) {
  const std::string d = (fs::temp_directory_path() / ("collbench-micro-inspector-" + std::to_string(getpid()) + "-" +
                                                      std::to_string(hosts) + "-" + std::to_string(collectives)))
                            .string();
  sim::JobSpec s;
  s.hosts = hosts, s.gpus = 8, s.collectives = collectives;
  sim::write_job(s, d);
  return d;
}

void BM_ReadJob(benchmark::State& state) {
  const std::string dir = write_job(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  std::uint64_t records = 0;
  std::size_t peak_open = 0;
  for (auto _ : state) {
    const Job job = read_job({dir});
    records += job.records;
    peak_open = job.peak_open;
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  state.SetItemsProcessed(static_cast<std::int64_t>(records));
  state.counters["ranks"] = static_cast<double>(state.range(0) * 8);
  state.counters["records"] = static_cast<double>(records / state.iterations());
  state.counters["peak_open"] = static_cast<double>(peak_open);
  state.counters["maxrss_MiB"] = static_cast<double>(u.ru_maxrss) / 1024.0;
  fs::remove_all(dir);
}

}  // namespace

BENCHMARK(BM_ParseLine);
// 64 ranks x 250 and x 1,000 collectives (the second four times as long: memory should not grow),
// and 1,024 ranks x 40.
BENCHMARK(BM_ReadJob)->Args({8, 250})->Args({8, 1000})->Args({128, 40})->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK_MAIN();
