// The straggler hunt at scale: attribution over a full 1,024-node pair matrix (pairwise schedule,
// 3 samples per pair, one slow node), over 4,096 nodes' screen (one slow node, one slow link, with
// the confirmation verdict), and schedule generation for 4,096 nodes.
#include <benchmark/benchmark.h>

#include <random>
#include <tuple>

#include "bench/schedules.h"
#include "reports/pairs/attribution.h"

namespace {

using namespace collbench;

void BM_AttributePairwise(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> noise(0.95, 1.05);
  std::vector<report::PairSample> samples;
  const Schedule s = pairwise_schedule(n);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) {
      const double base = (a == 17 || b == 17) ? 40.0 : 100.0;
      samples.push_back({a, b, r, {base * noise(gen), base * noise(gen), base * noise(gen)}});
    }
  for (auto _ : state) benchmark::DoNotOptimize(report::attribute(samples, n));
  state.counters["pairs"] = static_cast<double>(samples.size());
}

void BM_AttributeScreen(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::mt19937 gen(1);
  std::uniform_real_distribution<double> noise(0.95, 1.05);
  std::vector<report::PairSample> samples;
  const Schedule s = screen_schedule(n);
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) {
      const double base = (a == 17 || b == 17) ? 40.0 : (a == 100 && b == 101) ? 50.0 : 100.0;
      samples.push_back({a, b, r, {base * noise(gen), base * noise(gen), base * noise(gen)}});
    }
  // The confirmation the hunt would run: the straggler with a healthy node, the link again.
  for (const auto& [a, b, base] : {std::tuple{17, 500, 40.0}, std::tuple{100, 101, 50.0}})
    samples.push_back({a, b, static_cast<int>(s.size()), {base * noise(gen), base * noise(gen), base * noise(gen)}, true});
  report::AttributionOptions o;
  o.require_confirmation = true;
  for (auto _ : state) benchmark::DoNotOptimize(report::attribute(samples, n, o));
  state.counters["pairs"] = static_cast<double>(samples.size());
}

void BM_PairwiseSchedule(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(pairwise_schedule(n));
  state.counters["pairs"] = static_cast<double>(n) * (n - 1) / 2;
}

void BM_ScreenSchedule(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(screen_schedule(n));
}

}  // namespace

BENCHMARK(BM_AttributePairwise)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttributeScreen)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PairwiseSchedule)->Arg(4096)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ScreenSchedule)->Arg(4096)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
