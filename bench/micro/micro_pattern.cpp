// Host fill and verify throughput over the shared pattern, next to memcpy of the same bytes in
// the same run: the check pass should cost a small multiple of a copy, not dominate a sweep.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "bench/dtype.h"
#include "bench/host_pattern.h"

namespace {

using collbench::Coll;
using collbench::DType;
using collbench::RedOp;

constexpr std::size_t kBytes = 16 << 20;

collbench::pattern::Spec spec(std::uint64_t count) { return {Coll::AllReduce, RedOp::Sum, 5, 0, 8, 0, count}; }

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
    collbench::host_fill_input(t, buf.data(), count, spec(count));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
  state.SetLabel(std::string(collbench::dtype_info(t).name));
}

void BM_Verify(benchmark::State& state) {
  const auto t = static_cast<DType>(state.range(0));
  const std::uint64_t count = kBytes / collbench::dtype_info(t).size;
  std::vector<std::byte> buf(kBytes);
  // Expected values of an all_reduce are what rank `owner` wrote; fill as a 1-rank gather to get them.
  collbench::host_fill_input(t, buf.data(), count, {Coll::AllGather, RedOp::Sum, 5, 0, 1, 0, count});
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        collbench::host_count_wrong(t, buf.data(), count, {Coll::AllGather, RedOp::Sum, 5, 0, 1, 0, count}));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kBytes));
  state.SetLabel(std::string(collbench::dtype_info(t).name));
}

void dtypes(benchmark::internal::Benchmark* b) {
  for (DType t : {DType::Int8, DType::Half, DType::BFloat16, DType::Float, DType::Double, DType::Int64})
    b->Arg(static_cast<int>(t));
}

}  // namespace

BENCHMARK(BM_Memcpy);
BENCHMARK(BM_Fill)->Apply(dtypes);
BENCHMARK(BM_Verify)->Apply(dtypes);
BENCHMARK_MAIN();
