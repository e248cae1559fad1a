// The device fill/verify kernels against their host twins, bit for bit. Skips without a GPU.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "bench/dtype.h"
#include "bench/host_pattern.h"
#include "bench/nccl_backend.h"
#include "kernels/dispatch.h"
#include "kernels/fill_verify.h"

namespace collbench {
namespace {

#define SKIP_WITHOUT_GPU() \
  if (visible_gpu_count() == 0) GTEST_SKIP() << "no GPU visible: cudaGetDeviceCount found none (needs an NVIDIA GPU)"

void cuda_ok(cudaError_t e, const char* what) { ASSERT_EQ(e, cudaSuccess) << what << ": " << cudaGetErrorString(e); }

// A device buffer that frees itself.
struct DeviceBuffer {
  void* p = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { cuda_ok(cudaMalloc(&p, bytes == 0 ? 1 : bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

std::vector<std::byte> to_host(const void* src, std::size_t bytes) {
  std::vector<std::byte> out(bytes);
  cuda_ok(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  cuda_ok(cudaMemcpy(out.data(), src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  return out;
}

// encode(expected_value(spec, i)) for i < count, computed on the host.
std::vector<std::byte> host_expected(DType t, std::uint64_t count, const pattern::Spec& spec) {
  std::vector<std::byte> out(count * dtype_info(t).size);
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    auto* p = reinterpret_cast<pattern::storage_t<T>*>(out.data());
    for (std::uint64_t i = 0; i < count; ++i) p[i] = pattern::encode<T>(pattern::expected_value(spec, i));
  });
  return out;
}

std::string describe(DType t, const pattern::Spec& s) {
  return std::string(dtype_info(t).name) + " coll " + std::to_string(static_cast<int>(s.coll)) + " rank " +
         std::to_string(s.rank) + "/" + std::to_string(s.nranks) + " count " + std::to_string(s.count);
}

struct Shape {
  int rank, nranks;
  std::uint64_t count;
};
constexpr Shape kShapes[] = {{0, 1, 1}, {0, 2, 17}, {1, 2, 1000}, {3, 8, 4099}, {7, 8, 65536}};

// Elements of the buffer tested for a shape: all_to_all's send buffer is count per peer.
std::uint64_t elements(Coll c, const Shape& s) {
  return c == Coll::AllToAll ? s.count * static_cast<std::uint64_t>(s.nranks) : s.count;
}

TEST(DeviceKernels, FillInputMatchesHostForEveryTypeAndCollective) {
  SKIP_WITHOUT_GPU();
  for (const auto& d : all_dtypes()) {
    for (int c = 0; c < kCollCount; ++c) {
      for (const Shape& sh : kShapes) {
        const pattern::Spec spec{static_cast<Coll>(c), RedOp::Max, 12345, sh.rank, sh.nranks, sh.nranks - 1, sh.count};
        const std::uint64_t n = elements(spec.coll, sh);
        const std::size_t bytes = n * d.size;
        DeviceBuffer buf(bytes);
        device::fill_input(d.type, buf.p, n, spec, nullptr);
        const auto got = to_host(buf.p, bytes);
        std::vector<std::byte> want(bytes);
        host_fill_input(d.type, want.data(), n, spec);
        ASSERT_EQ(std::memcmp(got.data(), want.data(), bytes), 0) << describe(d.type, spec);
      }
    }
  }
}

TEST(DeviceKernels, FillValueMatchesHost) {
  SKIP_WITHOUT_GPU();
  for (const auto& d : all_dtypes()) {
    for (int v : {pattern::kPoison, pattern::kMinValue, 7, pattern::kMaxValue}) {
      const std::uint64_t n = 3001;
      DeviceBuffer buf(n * d.size);
      device::fill_value(d.type, buf.p, n, v, nullptr);
      const auto got = to_host(buf.p, n * d.size);
      std::vector<std::byte> want(n * d.size);
      host_fill_value(d.type, want.data(), n, v);
      ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0) << d.name << " value " << v;
    }
  }
}

TEST(DeviceKernels, CountWrongIsZeroOnExpectedAndCountsCorruptions) {
  SKIP_WITHOUT_GPU();
  for (const auto& d : all_dtypes()) {
    for (int c = 0; c < kCollCount; ++c) {
      for (const Shape& sh : kShapes) {
        const pattern::Spec spec{static_cast<Coll>(c), RedOp::Sum, 99, sh.rank, sh.nranks, 0, sh.count};
        const std::uint64_t n = elements(spec.coll, sh);
        const auto want = host_expected(d.type, n, spec);
        DeviceBuffer buf(want.size());
        cuda_ok(cudaMemcpy(buf.p, want.data(), want.size(), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
        ASSERT_EQ(device::count_wrong(d.type, buf.p, n, spec, nullptr), 0) << describe(d.type, spec);

        // Poison k distinct elements (first, last, and a stride between): exactly k are wrong.
        std::vector<std::uint64_t> spoil{0};
        if (n > 1) spoil.push_back(n - 1);
        for (std::uint64_t i = 1; i + 1 < n && spoil.size() < 5; i += n / 4 + 1) spoil.push_back(i);
        for (std::uint64_t i : spoil)
          device::fill_value(d.type, static_cast<std::byte*>(buf.p) + i * d.size, 1, pattern::kPoison, nullptr);
        EXPECT_EQ(device::count_wrong(d.type, buf.p, n, spec, nullptr), static_cast<std::int64_t>(spoil.size()))
            << describe(d.type, spec);
      }
    }
  }
}

// count_wrong on data that is mostly wrong (an input fill) agrees with the host count.
TEST(DeviceKernels, CountWrongMatchesHostOnArbitraryData) {
  SKIP_WITHOUT_GPU();
  for (const auto& d : all_dtypes()) {
    for (int c = 0; c < kCollCount; ++c) {
      const pattern::Spec spec{static_cast<Coll>(c), RedOp::Min, 7, 2, 4, 1, 2053};
      const std::uint64_t n = elements(spec.coll, Shape{2, 4, 2053});
      std::vector<std::byte> data(n * d.size);
      host_fill_input(d.type, data.data(), n, spec);
      DeviceBuffer buf(data.size());
      cuda_ok(cudaMemcpy(buf.p, data.data(), data.size(), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
      EXPECT_EQ(device::count_wrong(d.type, buf.p, n, spec, nullptr), host_count_wrong(d.type, data.data(), n, spec))
          << describe(d.type, spec);
    }
  }
}

// More elements than one pass of the grid covers (4096 blocks of 256 threads, 64 bytes each),
// so the grid-stride loops and the per-block sums are exercised.
TEST(DeviceKernels, LargeBufferGridStride) {
  SKIP_WITHOUT_GPU();
  const std::uint64_t n = (std::uint64_t{1} << 26) + 99;
  for (DType t : {DType::Uint8, DType::Float, DType::Double}) {
    const std::size_t elt = dtype_info(t).size;
    const pattern::Spec spec{Coll::AllGather, RedOp::Sum, 5, 0, 1, 0, n};
    DeviceBuffer buf(n * elt);
    device::fill_input(t, buf.p, n, spec, nullptr);
    const auto got = to_host(buf.p, n * elt);
    std::vector<std::byte> want(n * elt);
    host_fill_input(t, want.data(), n, spec);
    ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << dtype_info(t).name;
    // With nranks 1, rank 0's all_gather input is its expected output.
    EXPECT_EQ(device::count_wrong(t, buf.p, n, spec, nullptr), 0) << dtype_info(t).name;
    device::fill_value(t, buf.p, n, pattern::kPoison, nullptr);
    EXPECT_EQ(device::count_wrong(t, buf.p, n, spec, nullptr), static_cast<std::int64_t>(n)) << dtype_info(t).name;
  }
}

// A buffer not aligned to its element size is all "head", handled element by element: with more
// elements than the grid has threads (4096 x 256), the head loop must stride over the grid too.
TEST(DeviceKernels, MisalignedBufferGridStride) {
  SKIP_WITHOUT_GPU();
  const std::uint64_t n = (std::uint64_t{1} << 21) + 7;
  const DType t = DType::Float;
  const pattern::Spec spec{Coll::AllGather, RedOp::Sum, 9, 0, 1, 0, n};
  DeviceBuffer buf(n * 4 + 4);
  void* p = static_cast<std::byte*>(buf.p) + 2;  // 2-byte aligned only
  device::fill_input(t, p, n, spec, nullptr);
  const auto got = to_host(p, n * 4);
  std::vector<std::byte> want(n * 4);
  host_fill_input(t, want.data(), n, spec);
  ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0);
  EXPECT_EQ(device::count_wrong(t, p, n, spec, nullptr), 0);
  device::fill_value(t, p, n, pattern::kPoison, nullptr);
  EXPECT_EQ(device::count_wrong(t, p, n, spec, nullptr), static_cast<std::int64_t>(n));
}

TEST(DeviceKernels, ZeroCountIsANoOp) {
  SKIP_WITHOUT_GPU();
  const pattern::Spec spec{Coll::AllReduce, RedOp::Sum, 1, 0, 1, 0, 0};
  device::fill_input(DType::Float, nullptr, 0, spec, nullptr);
  device::fill_value(DType::Float, nullptr, 0, 0, nullptr);
  EXPECT_EQ(device::count_wrong(DType::Float, nullptr, 0, spec, nullptr), 0);
}

}  // namespace
}  // namespace collbench
