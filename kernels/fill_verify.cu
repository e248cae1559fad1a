// Device twins of bench/host_pattern.cpp: the same pattern functions, run by grid-stride kernels.
//
// Each thread handles 64-byte tiles (four 16-byte accesses), tracking its tile's row, pattern index
// and owner with additions only (divisions once per thread, at its start). A tile costs one hash
// and reads of the 128 KiB pattern table, which stays in cache.
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

using pattern::Fill;
using pattern::kChunk;

__device__ const pattern::Table kTable = pattern::make_table();

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;  // enough to fill any current GPU; the loop covers the rest

// A thread's unit of work: 64 bytes, four 16-byte vector accesses, held as 32-bit words.
template <DType T> constexpr unsigned kTile = 64 / sizeof(pattern::storage_t<T>);
struct alignas(16) Tile {
  std::uint32_t w[16];
};

// Element e of a tile; e is a constant once loops unroll, so this is register moves.
template <DType T> __device__ inline void set(Tile& t, unsigned e, pattern::storage_t<T> x) {
  constexpr unsigned size = sizeof x;
  if constexpr (size >= 4) {
    memcpy(&t.w[e * size / 4], &x, size);
  } else {
    std::uint32_t b = 0;
    memcpy(&b, &x, size);
    const unsigned shift = 8 * size * (e % (4 / size));
    t.w[e * size / 4] = (shift ? t.w[e * size / 4] : 0u) | b << shift;
  }
}

// One launch over a buffer: its layout, split into an unaligned head, whole tiles and a tail.
struct Walk {
  pattern::Spec spec;
  pattern::Layout layout;
  std::uint64_t head, tiles, tail;        // elements, tiles, elements
  std::uint64_t len;                      // row length; ~0 for one row
  std::uint64_t step, step_rows, step_k;  // grid stride in elements, as whole rows plus the rest
  std::uint64_t owned;                    // bits at the multiples of nranks below 64
  std::uint32_t step_owner;               // grid stride mod nranks
  int id;                                 // reduction identity
};

// The first element of a thread's current tile.
struct Pos {
  std::uint64_t row, k, g;  // row, offset in it, pattern index
  std::uint32_t owner;      // owner of g (Reduce layouts)
};

__device__ Pos locate(const Walk& w, std::uint64_t i) {
  Pos p{0, i, 0, 0};
  if (w.len != ~0ull) p.row = i / w.len, p.k = i % w.len;
  p.g = w.layout.first + p.row * w.layout.stride + p.k;
  if (w.layout.fill == Fill::Reduce)
    p.owner = static_cast<std::uint32_t>(pattern::owner(w.spec.seed, p.g, w.spec.nranks));
  return p;
}

__device__ void advance(const Walk& w, Pos& p) {
  p.k += w.step_k;
  p.row += w.step_rows;
  if (p.k >= w.len) p.k -= w.len, ++p.row;
  p.g = w.layout.first + p.row * w.layout.stride + p.k;
  p.owner += w.step_owner;
  if (p.owner >= static_cast<std::uint32_t>(w.spec.nranks)) p.owner -= w.spec.nranks;
}

// Hands the tile's expected contents to sink: sink.tile(Tile) when all of it lies in one row and
// one chunk, sink.element(e, value) one by one when it crosses an edge (one tile in thousands).
// The common case reads the tile's table bytes as aligned words shifted into place, so 1-byte
// types cost a load and a funnel shift per 4 elements, wider ones a byte extract and a conversion
// per element more.
template <DType T, Fill F, class Sink> __device__ void expected(const Walk& w, const Pos& p, Sink& sink) {
  constexpr unsigned n = kTile<T>, words = n / 4;
  using S = pattern::storage_t<T>;
  Tile out;
  if constexpr (F == Fill::Fixed) {
    const S x = pattern::encode<T>(w.layout.fixed);
#pragma unroll
    for (unsigned e = 0; e < n; ++e) set<T>(out, e, x);
    return sink.tile(out);
  }
  const auto lo = static_cast<std::uint32_t>(p.g % kChunk);
  if (p.k + n <= w.len && lo + n <= kChunk) {
    const std::uint32_t x = lo + pattern::chunk_offset(w.spec.seed, p.g / kChunk), shift = 8 * (x % 4);
    const auto* src = reinterpret_cast<const std::uint32_t*>(kTable.v) + x / 4;
    std::uint32_t v[words], prev = __ldg(src);
#pragma unroll
    for (unsigned q = 0; q < words; ++q) {
      const std::uint32_t next = __ldg(src + q + 1);
      v[q] = __funnelshift_r(prev, next, shift);
      prev = next;
    }
    if constexpr (F == Fill::Reduce) {
      // Bit e of mine: element e is this rank's to contribute; the others take the identity.
      const auto r = static_cast<std::uint32_t>(w.spec.rank), ranks = static_cast<std::uint32_t>(w.spec.nranks);
      const std::uint32_t d = r >= p.owner ? r - p.owner : r + ranks - p.owner;
      const std::uint64_t mine = d < 64 ? w.owned << d : 0;
      const std::uint32_t id = static_cast<std::uint32_t>(w.id) * 0x01010101u;
#pragma unroll
      for (unsigned q = 0; q < words; ++q) {
        // 4 bits to 4 byte masks: multiply spreads bit b to bit 8b, then 0x01 -> 0xFF.
        const auto b = static_cast<std::uint32_t>(mine >> (4 * q)) & 0xFu;
        const std::uint32_t m = ((b * 0x00204081u) & 0x01010101u) * 0xFFu;
        v[q] = (v[q] & m) | (id & ~m);
      }
    }
    if constexpr (sizeof(S) == 1) {
      memcpy(out.w, v, sizeof v);
    } else {
#pragma unroll
      for (unsigned e = 0; e < n; ++e) {
        const auto byte = static_cast<int>((v[e / 4] >> (8 * (e % 4))) & 0xFFu);
        set<T>(out, e, pattern::encode<T>(byte));
      }
    }
    return sink.tile(out);
  }
  std::uint64_t row = p.row, k = p.k, g = p.g;
  std::uint32_t o = p.owner;  // Reduce layouts are one row, so owners go in turn
#pragma unroll 1
  for (unsigned e = 0; e < n; ++e) {
    int v = __ldg(&kTable.v[g % kChunk + pattern::chunk_offset(w.spec.seed, g / kChunk)]);
    if (F == Fill::Reduce && o != static_cast<std::uint32_t>(w.spec.rank)) v = w.id;
    sink.element(e, pattern::encode<T>(v));
    ++g;
    if (++o == static_cast<std::uint32_t>(w.spec.nranks)) o = 0;
    if (++k == w.len) k = 0, ++row, g = w.layout.first + row * w.layout.stride;
  }
}

// Head and tail elements, one per thread: the definition itself, divisions and all.
template <DType T> __device__ pattern::storage_t<T> element(const Walk& w, std::uint64_t i) {
  return pattern::encode<T>(pattern::layout_value(w.spec, w.layout, i));
}

__device__ inline std::uint64_t thread_index() {
  return static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline std::uint64_t grid_threads() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

template <DType T> struct Store {
  Tile* at;
  __device__ void tile(const Tile& t) { *at = t; }
  __device__ void element(unsigned e, pattern::storage_t<T> x) {
    reinterpret_cast<pattern::storage_t<T>*>(at)[e] = x;
  }
};

template <DType T> struct Compare {
  const Tile* at;
  unsigned long long wrong;
  // Mismatches are rare: compare words, and count elements only when some differ.
  __device__ void tile(const Tile& want) {
    constexpr unsigned size = sizeof(pattern::storage_t<T>), lane = size < 4 ? size : 4;
    const Tile got = *at;
    std::uint32_t any = 0;
#pragma unroll
    for (unsigned q = 0; q < 16; ++q) any |= got.w[q] ^ want.w[q];
    if (any == 0) return;
    // Elements with a differing bit: OR each lane's bits into its lowest, then count those.
    constexpr std::uint32_t low = lane == 1 ? 0x01010101u : lane == 2 ? 0x00010001u : 1u;
#pragma unroll
    for (unsigned q = 0; q < 16; q += size / lane) {
      std::uint32_t d = got.w[q] ^ want.w[q];
      if constexpr (size == 8) d |= got.w[q + 1] ^ want.w[q + 1];
      for (unsigned shift = 4 * lane; shift > 0; shift /= 2) d |= d >> shift;
      wrong += __popc(d & low);
    }
  }
  __device__ void element(unsigned e, pattern::storage_t<T> x) {
    wrong += !pattern::same_bits<T>(reinterpret_cast<const pattern::storage_t<T>*>(at)[e], x);
  }
};

template <DType T, Fill F> __global__ void fill_kernel(pattern::storage_t<T>* dst, Walk w) {
  const std::uint64_t t = thread_index(), body = w.head + w.tiles * kTile<T>;
  // Grid-stride: a misaligned buffer is all head, and may hold more elements than the grid has threads.
  for (std::uint64_t i = t; i < w.head; i += grid_threads()) dst[i] = element<T>(w, i);
  for (std::uint64_t i = t; i < w.tail; i += grid_threads()) dst[body + i] = element<T>(w, body + i);
  if (t >= w.tiles) return;
  Pos p = locate(w, w.head + t * kTile<T>);
  auto* tiles = reinterpret_cast<Tile*>(dst + w.head);
  for (std::uint64_t v = t; v < w.tiles; v += w.step / kTile<T>, advance(w, p)) {
    Store<T> sink{tiles + v};
    expected<T, F>(w, p, sink);
  }
}

template <DType T, Fill F>
__global__ void count_wrong_kernel(const pattern::storage_t<T>* src, Walk w, unsigned long long* wrong) {
  const std::uint64_t t = thread_index(), body = w.head + w.tiles * kTile<T>;
  Compare<T> sink{nullptr, 0};
  for (std::uint64_t i = t; i < w.head; i += grid_threads())
    sink.wrong += !pattern::same_bits<T>(src[i], element<T>(w, i));
  for (std::uint64_t i = t; i < w.tail; i += grid_threads())
    sink.wrong += !pattern::same_bits<T>(src[body + i], element<T>(w, body + i));
  if (t < w.tiles) {
    Pos p = locate(w, w.head + t * kTile<T>);
    const auto* tiles = reinterpret_cast<const Tile*>(src + w.head);
    for (std::uint64_t v = t; v < w.tiles; v += w.step / kTile<T>, advance(w, p)) {
      sink.at = tiles + v;
      expected<T, F>(w, p, sink);
    }
  }
  // One atomic per block: warp sums, then the block's sum in shared memory.
  unsigned long long mine = sink.wrong;
  for (int off = 16; off > 0; off /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, off);
  __shared__ unsigned long long block_sum;
  if (threadIdx.x == 0) block_sum = 0;
  __syncthreads();
  if ((threadIdx.x & 31u) == 0 && mine != 0) atomicAdd(&block_sum, mine);
  __syncthreads();
  if (threadIdx.x == 0 && block_sum != 0) atomicAdd(wrong, block_sum);
}

// Splits count elements at p into head, tiles and tail, and sizes the grid.
template <DType T> Walk plan(const void* p, std::uint64_t count, const pattern::Spec& spec, const pattern::Layout& l,
                             unsigned* blocks) {
  constexpr std::uint64_t n = kTile<T>, size = sizeof(pattern::storage_t<T>);
  Walk w{spec, l, 0, 0, 0, l.len ? l.len : ~0ull, 0, 0, 0, 0, 0, pattern::identity(spec.redop)};
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  w.head = addr % size ? count : std::min<std::uint64_t>(count, (16 - addr % 16) % 16 / size);
  w.tiles = (count - w.head) / n;
  w.tail = count - w.head - w.tiles * n;
  const std::uint64_t threads = std::max({w.tiles, w.head, w.tail});
  *blocks = static_cast<unsigned>(std::clamp<std::uint64_t>((threads + kThreads - 1) / kThreads, 1, kMaxBlocks));
  w.step = std::uint64_t{*blocks} * kThreads * n;
  w.step_rows = w.step / w.len;
  w.step_k = w.step % w.len;
  const auto ranks = static_cast<std::uint64_t>(spec.nranks);
  w.step_owner = static_cast<std::uint32_t>(w.step % ranks);
  for (std::uint64_t b = 0; b < 64; b += ranks) w.owned |= std::uint64_t{1} << b;
  return w;
}

// Calls f(std::integral_constant<Fill, F>{}) for the runtime fill kind.
template <class Fn> void with_fill(Fill f, Fn&& fn) {
  switch (f) {
    case Fill::Values: return fn(std::integral_constant<Fill, Fill::Values>{});
    case Fill::Reduce: return fn(std::integral_constant<Fill, Fill::Reduce>{});
    case Fill::Fixed: return fn(std::integral_constant<Fill, Fill::Fixed>{});
  }
}

void launch_fill(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec, const pattern::Layout& l,
                 void* stream) {
  if (count == 0) return;
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    unsigned blocks = 0;
    const Walk w = plan<T>(dst, count, spec, l, &blocks);
    with_fill(l.fill, [&](auto fill) {
      fill_kernel<T, decltype(fill)::value><<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
          static_cast<pattern::storage_t<T>*>(dst), w);
    });
  });
  CB_CUDA(cudaGetLastError());
}

}  // namespace

void fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec, void* stream) {
  launch_fill(t, dst, count, spec, pattern::input_layout(spec), stream);
}

void fill_value(DType t, void* dst, std::uint64_t count, int v, void* stream) {
  const pattern::Spec any{Coll::AllReduce, RedOp::Sum, 0, 0, 1, 0, count};
  launch_fill(t, dst, count, any, pattern::Layout{Fill::Fixed, v, 0, 0, 0}, stream);
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
  const pattern::Layout l = pattern::expected_layout(spec);
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    unsigned blocks = 0;
    const Walk w = plan<T>(src, count, spec, l, &blocks);
    with_fill(l.fill, [&](auto fill) {
      count_wrong_kernel<T, decltype(fill)::value><<<blocks, kThreads, 0, s>>>(
          static_cast<const pattern::storage_t<T>*>(src), w, wrong);
    });
  });
  CB_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  CB_CUDA(cudaMemcpyAsync(&host, wrong, sizeof host, cudaMemcpyDeviceToHost, s));
  CB_CUDA(cudaStreamSynchronize(s));
  return static_cast<std::int64_t>(host);
}

}  // namespace collbench::device
