// Host fill and verify throughput over the shared pattern, next to memcpy of the same bytes in
// the same run: the check pass should cost a small multiple of a copy, not dominate a sweep.
// Ends with one line per datatype: fill and verify bytes/s as a fraction of memcpy's (target >= 0.5).
// On a shared machine, repeat and interleave so the ratios see the same conditions:
//   micro_pattern --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bench/dtype.h"
#include "bench/host_pattern.h"

namespace {

using collbench::Coll;
using collbench::DType;
using collbench::RedOp;

constexpr std::size_t kBytes = 16 << 20;

// Fill: an all_reduce input of rank 3 of 8 (one element in 8 is this rank's). Verify: an
// all_to_all result of rank 1 of 8 (rows from every peer), filled correctly first.
collbench::pattern::Spec fill_spec(std::uint64_t count) { return {Coll::AllReduce, RedOp::Sum, 5, 3, 8, 0, count}; }
collbench::pattern::Spec verify_spec(std::uint64_t count) {
  return {Coll::AllToAll, RedOp::Sum, 5, 1, 8, 0, count / 8};
}

void BM_Memcpy(benchmark::State& state) {
  std::vector<char> a(kBytes, 1), b(kBytes);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), kBytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
}

void BM_Fill(benchmark::State& state) {
  const auto t = static_cast<DType>(state.range(0));
  const std::uint64_t count = kBytes / collbench::dtype_info(t).size;
  std::vector<std::byte> buf(kBytes);
  for (auto _ : state) {
    collbench::host_fill_input(t, buf.data(), count, fill_spec(count));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
  state.SetLabel(std::string(collbench::dtype_info(t).name));
}

void BM_Verify(benchmark::State& state) {
  const auto t = static_cast<DType>(state.range(0));
  const std::uint64_t count = kBytes / collbench::dtype_info(t).size;
  const auto spec = verify_spec(count);
  std::vector<std::byte> buf(kBytes);
  // The expected result of rank 1, as the ranks' inputs would deliver it: row s is row 1 of rank s.
  for (int s = 0; s < 8; ++s) {
    std::vector<std::byte> in(kBytes);
    auto peer = spec;
    peer.rank = s;
    collbench::host_fill_input(t, in.data(), count, peer);
    std::memcpy(buf.data() + s * kBytes / 8, in.data() + kBytes / 8, kBytes / 8);
  }
  if (collbench::host_count_wrong(t, buf.data(), count, spec) != 0)
    state.SkipWithError("expected data does not verify");
  for (auto _ : state) benchmark::DoNotOptimize(collbench::host_count_wrong(t, buf.data(), count, spec));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
  state.SetLabel(std::string(collbench::dtype_info(t).name));
}

void dtypes(benchmark::internal::Benchmark* b) {
  for (const auto& d : collbench::all_dtypes()) b->Arg(static_cast<int>(d.type));
}

// Prints as usual and keeps each run's bytes/s for the summary: the median over repetitions
// (--benchmark_repetitions), from the median aggregate when only aggregates are reported.
class Reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) {
      if (!r.counters.count("bytes_per_second")) continue;
      const std::string key = r.run_name.function_name + "/" + r.report_label;
      const double v = r.counters.at("bytes_per_second");
      if (r.run_type == Run::RT_Iteration) runs_[key].push_back(v);
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") medians_[key] = v;
    }
    ConsoleReporter::ReportRuns(runs);
  }
  // 0 when it did not run.
  double rate(const std::string& key) {
    if (medians_.count(key)) return medians_[key];
    auto& v = runs_[key];
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }

 private:
  std::map<std::string, std::vector<double>> runs_;  // "BM_Fill/int8" -> bytes/s of each repetition
  std::map<std::string, double> medians_;
};

}  // namespace

BENCHMARK(BM_Memcpy);
BENCHMARK(BM_Fill)->Apply(dtypes);
BENCHMARK(BM_Verify)->Apply(dtypes);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const double memcpy_rate = reporter.rate("BM_Memcpy/");
  if (memcpy_rate <= 0) return 0;
  std::printf("\n%-9s %12s %14s\n", "dtype", "fill/memcpy", "verify/memcpy");
  for (const auto& d : collbench::all_dtypes()) {
    const std::string name(d.name);
    const double fill = reporter.rate("BM_Fill/" + name), verify = reporter.rate("BM_Verify/" + name);
    auto ratio = [&](double r) {
      char text[32] = "-";
      if (r > 0) std::snprintf(text, sizeof text, "%.2f", r / memcpy_rate);
      return std::string(text);
    };
    if (fill > 0 || verify > 0)
      std::printf("%-9s %12s %14s\n", name.c_str(), ratio(fill).c_str(), ratio(verify).c_str());
  }
  return 0;
}
