// Summarising samples at scale: 16,384 ranks x 20 iterations per case, 30 sizes per sweep.
#include <benchmark/benchmark.h>

#include <random>

#include "reports/core/case_summary.h"

namespace {

using namespace collbench::report;

void BM_SummarizeSweep(benchmark::State& state) {
  const int ranks = static_cast<int>(state.range(0));
  constexpr int kIters = 20, kSizes = 30, kRanksPerNode = 8;
  std::mt19937 gen(1);
  std::lognormal_distribution<double> noise(0.0, 0.1);
  std::vector<std::vector<double>> samples(ranks, std::vector<double>(kIters));
  for (auto& r : samples)
    for (auto& s : r) s = 1e-3 * noise(gen);
  std::vector<NodeInfo> nodes(ranks / kRanksPerNode);
  for (int r = 0; r < ranks; ++r) nodes[r / kRanksPerNode].ranks.push_back(r);
  RawCase raw;
  raw.op = "all_reduce";
  raw.bytes = 1 << 20;
  raw.busbw_factor = 2.0 * (ranks - 1) / ranks;
  raw.samples_s = &samples;
  for (auto _ : state) {
    for (int size = 0; size < kSizes; ++size) benchmark::DoNotOptimize(summarize_case(raw, RankReduce::Mean, nodes));
  }
  state.SetItemsProcessed(state.iterations() * kSizes);
  state.counters["ranks"] = ranks;
}

}  // namespace

BENCHMARK(BM_SummarizeSweep)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
