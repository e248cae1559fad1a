// The machine's own speed, measured beside the other micro benchmarks: work that has no collbench
// code in it (a sort of doubles for the CPU, a copy larger than the last-level cache for memory).
// scripts/perf-check.sh divides each benchmark's slowdown by these two's, so a machine that is
// slower or busier as a whole does not read as a regression in collbench.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

namespace {

void BM_RefSort(benchmark::State& state) {
  std::vector<double> pristine(1 << 18);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (auto& x : pristine) x = u(rng);
  std::vector<double> work(pristine.size());
  for (auto _ : state) {
    work = pristine;
    std::sort(work.begin(), work.end());
    benchmark::DoNotOptimize(work.data());
  }
}

void BM_RefCopy(benchmark::State& state) {
  constexpr std::size_t kBytes = 64 << 20;  // past any L3 of the machines CI runs on
  std::vector<char> a(kBytes, 1), b(kBytes);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), kBytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}

}  // namespace

BENCHMARK(BM_RefSort)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RefCopy)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
