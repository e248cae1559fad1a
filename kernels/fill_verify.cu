// Device twins of bench/host_pattern.cpp: the same pattern functions, run by grid-stride kernels.
#include "kernels/fill_verify.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "bench/errors.h"
#include "kernels/dispatch.h"

namespace collbench::device {
namespace {

void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) throw RunError(std::string(call) + " failed: " + cudaGetErrorString(e));
}
#define CB_CUDA(call) check((call), #call)

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;  // enough to fill any current GPU; the loop covers the rest

unsigned blocks_for(std::uint64_t count) {
  return static_cast<unsigned>(std::min<std::uint64_t>((count + kThreads - 1) / kThreads, kMaxBlocks));
}

__device__ inline std::uint64_t first_index() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::uint64_t grid_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

template <DType T>
__global__ void fill_input_kernel(pattern::storage_t<T>* dst, std::uint64_t count, pattern::Spec spec) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride())
    dst[i] = pattern::encode<T>(pattern::input_value(spec, i));
}

template <DType T>
__global__ void fill_value_kernel(pattern::storage_t<T>* dst, std::uint64_t count, pattern::storage_t<T> v) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) dst[i] = v;
}

template <DType T>
__global__ void count_wrong_kernel(const pattern::storage_t<T>* src, std::uint64_t count, pattern::Spec spec,
                                   unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = first_index(); i < count; i += grid_stride())
    if (!pattern::same_bits<T>(src[i], pattern::encode<T>(pattern::expected_value(spec, i)))) ++mine;
  // One atomic per block: warp sums, then the block's sum in shared memory.
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, off);
  __shared__ unsigned long long block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(&block_sum, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_sum != 0) atomicAdd(wrong, block_sum);
}

}  // namespace

void fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec, void* stream) {
  if (count == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    fill_input_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(static_cast<pattern::storage_t<T>*>(dst), count,
                                                                spec);
  });
  CB_CUDA(cudaGetLastError());
}

void fill_value(DType t, void* dst, std::uint64_t count, int v, void* stream) {
  if (count == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    fill_value_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(static_cast<pattern::storage_t<T>*>(dst), count,
                                                                pattern::encode<T>(v));
  });
  CB_CUDA(cudaGetLastError());
}

std::int64_t count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec, void* stream) {
  if (count == 0) return 0;
  auto s = static_cast<cudaStream_t>(stream);
  // Stream-ordered allocation: no device-wide synchronization while other streams (NCCL's) run.
  unsigned long long* wrong = nullptr;
  CB_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&wrong), sizeof *wrong, s));
  struct Release {
    void* p;
    cudaStream_t s;
    ~Release() { cudaFreeAsync(p, s); }
  } release{wrong, s};
  CB_CUDA(cudaMemsetAsync(wrong, 0, sizeof *wrong, s));
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    count_wrong_kernel<T><<<blocks_for(count), kThreads, 0, s>>>(static_cast<const pattern::storage_t<T>*>(src),
                                                                 count, spec, wrong);
  });
  CB_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  CB_CUDA(cudaMemcpyAsync(&host, wrong, sizeof host, cudaMemcpyDeviceToHost, s));
  CB_CUDA(cudaStreamSynchronize(s));
  return static_cast<std::int64_t>(host);
}

}  // namespace collbench::device
