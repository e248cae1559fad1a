// The value pattern written into input buffers and expected in output buffers.
//
// One header for host and device: the CUDA fill/verify kernels and the host loops compute the same
// functions, so a GPU run and a CPU run check exactly the same thing.
//
// Every value is a small integer (1..15; the identities are 0, 1 and 16) and every reduction has
// exactly one contributing rank per element (the others contribute the operation's identity).
// Sums, products, maxima and minima are therefore exact in every datatype, in any reduction order
// and for any rank count, and a result is checked by comparing bits.
//
// Cost: the pattern index space is cut into chunks of kChunk indices, and a chunk's values are the
// fixed table of small numbers, rotated by a hash of (seed, chunk). So an element costs one table
// load, a chunk one hash, and nothing needs a division: host loops copy or convert table runs,
// and the device kernels do little arithmetic per byte.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/types.h"

#if defined(__CUDACC__)
#define CB_HD __host__ __device__
#else
#define CB_HD
#endif

namespace collbench::pattern {

// What one rank of one collective call sees. `count` is nccl-tests' parameter count (elements per
// rank for all_gather/reduce_scatter, per peer for all_to_all, the whole buffer otherwise).
struct Spec {
  Coll coll;
  RedOp redop;
  std::uint64_t seed;
  int rank;
  int nranks;
  int root;
  std::uint64_t count;
};

inline constexpr int kMinValue = 1;
inline constexpr int kMaxValue = 15;
// Never a valid output: output buffers are poisoned with it before a checked call.
inline constexpr int kPoison = 0;

inline constexpr unsigned kChunkBits = 16;
inline constexpr std::uint64_t kChunk = std::uint64_t{1} << kChunkBits;

// Entry j of the fixed table (periodic in kChunk): a value from an integer mix of j.
CB_HD constexpr std::uint8_t table_entry(std::uint32_t j) {
  std::uint32_t x = (j % kChunk) * 0x9E3779B1u;
  x ^= x >> 16;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  return static_cast<std::uint8_t>(kMinValue + ((((x >> 16) * (kMaxValue - kMinValue + 1u)) >> 16)));
}

// The table twice over, so every rotation of it is contiguous, and a little more for loads of
// whole words past a rotation's end.
struct alignas(16) Table {
  std::uint8_t v[2 * kChunk + 16];
};
CB_HD constexpr Table make_table() {
  Table t{};
  for (std::uint32_t j = 0; j < sizeof t.v; ++j) t.v[j] = table_entry(j);
  return t;
}

// Where chunk `chunk` starts in the table: an integer mix of (seed, chunk).
CB_HD inline std::uint32_t chunk_offset(std::uint64_t seed, std::uint64_t chunk) {
  std::uint64_t x = chunk * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return static_cast<std::uint32_t>(x >> (64 - kChunkBits));
}

// The value at pattern index `index` for `seed`: cheap integer mixes, not a random generator.
CB_HD inline int base_value(std::uint64_t seed, std::uint64_t index) {
  return table_entry(static_cast<std::uint32_t>(index % kChunk) + chunk_offset(seed, index / kChunk));
}

CB_HD inline int identity(RedOp op) {
  switch (op) {
    case RedOp::Sum: return 0;
    case RedOp::Prod: return 1;
    case RedOp::Max: return kMinValue - 1;
    case RedOp::Min: return kMaxValue + 1;
  }
  return 0;
}

// The rank whose value survives the reduction of element `index`; all others give the identity.
// Consecutive indices have consecutive owners, so loops track it with a counter.
CB_HD inline int owner(std::uint64_t seed, std::uint64_t index, int nranks) {
  const auto n = static_cast<std::uint64_t>(nranks);
  return static_cast<int>((index % n + seed % n) % n);
}

// How a buffer maps onto pattern indices, so loops can walk it row by row: element k of row r
// (rows of `len` elements; len 0: one row) has index first + r * stride + k.
//   Values: base_value of the index. Reduce: that where this rank owns the index, the
//   identity elsewhere. Fixed: `fixed` everywhere.
enum class Fill : std::uint8_t { Values, Reduce, Fixed };
struct Layout {
  Fill fill;
  int fixed;
  std::uint64_t first, stride, len;
};

// This rank's send buffer (send count elements, see the collectives table).
CB_HD inline Layout input_layout(const Spec& s) {
  const std::uint64_t n = static_cast<std::uint64_t>(s.nranks);
  const std::uint64_t r = static_cast<std::uint64_t>(s.rank);
  switch (s.coll) {
    case Coll::AllReduce:
    case Coll::ReduceScatter: return {Fill::Reduce, 0, 0, 0, 0};
    case Coll::AllGather:
    case Coll::SendRecv: return {Fill::Values, 0, r * s.count, 0, 0};
    case Coll::AllToAll: return {Fill::Values, 0, r * n * s.count, s.count, s.count};  // row: destination
    case Coll::Broadcast:
      return s.rank == s.root ? Layout{Fill::Values, 0, 0, 0, 0} : Layout{Fill::Fixed, kPoison, 0, 0, 0};
  }
  return {Fill::Fixed, kPoison, 0, 0, 0};
}

// This rank's result (receive count elements).
CB_HD inline Layout expected_layout(const Spec& s) {
  const std::uint64_t n = static_cast<std::uint64_t>(s.nranks);
  const std::uint64_t r = static_cast<std::uint64_t>(s.rank);
  switch (s.coll) {
    case Coll::AllReduce:
    case Coll::AllGather:
    case Coll::Broadcast: return {Fill::Values, 0, 0, 0, 0};
    case Coll::ReduceScatter: return {Fill::Values, 0, r * s.count, 0, 0};
    case Coll::AllToAll: return {Fill::Values, 0, r * s.count, n * s.count, s.count};  // row: source
    case Coll::SendRecv: return {Fill::Values, 0, (r + n - 1) % n * s.count, 0, 0};
  }
  return {Fill::Fixed, kPoison, 0, 0, 0};
}

// Value at pattern index g of a buffer laid out as l (row and offset already resolved).
CB_HD inline int index_value(const Spec& s, const Layout& l, std::uint64_t g) {
  switch (l.fill) {
    case Fill::Values: return base_value(s.seed, g);
    case Fill::Reduce: return owner(s.seed, g, s.nranks) == s.rank ? base_value(s.seed, g) : identity(s.redop);
    case Fill::Fixed: return l.fixed;
  }
  return kPoison;
}

// Element i of a buffer laid out as l: the definition every fast loop must reproduce.
CB_HD inline int layout_value(const Spec& s, const Layout& l, std::uint64_t i) {
  const std::uint64_t row = l.len ? i / l.len : 0, k = l.len ? i % l.len : i;
  return index_value(s, l, l.first + row * l.stride + k);
}

// Element i of this rank's send buffer, and element j of its result.
CB_HD inline int input_value(const Spec& s, std::uint64_t i) { return layout_value(s, input_layout(s), i); }
CB_HD inline int expected_value(const Spec& s, std::uint64_t j) { return layout_value(s, expected_layout(s), j); }

// IEEE binary16 and bfloat16 bit patterns of a small non-negative integer (< 256), without
// relying on any half-precision type so host-only builds agree bit for bit with device builds.
CB_HD inline std::uint16_t small_int_to_half_bits(int v) {
  if (v <= 0) return 0;
  int e = 0;
  while ((v >> (e + 1)) != 0) ++e;
  const unsigned mant = (static_cast<unsigned>(v) << (10 - e)) & 0x3FFu;
  return static_cast<std::uint16_t>(((e + 15) << 10) | mant);
}

CB_HD inline std::uint16_t small_int_to_bf16_bits(int v) {
  if (v <= 0) return 0;
  int e = 0;
  while ((v >> (e + 1)) != 0) ++e;
  const unsigned mant = (static_cast<unsigned>(v) << (7 - e)) & 0x7Fu;
  return static_cast<std::uint16_t>(((e + 127) << 7) | mant);
}

CB_HD inline std::uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
#endif
}

// Storage type of each datatype; half and bfloat16 are stored as their bits.
template <DType T> struct Storage;
template <> struct Storage<DType::Int8> { using type = std::int8_t; };
template <> struct Storage<DType::Uint8> { using type = std::uint8_t; };
template <> struct Storage<DType::Int32> { using type = std::int32_t; };
template <> struct Storage<DType::Uint32> { using type = std::uint32_t; };
template <> struct Storage<DType::Int64> { using type = std::int64_t; };
template <> struct Storage<DType::Uint64> { using type = std::uint64_t; };
template <> struct Storage<DType::Half> { using type = std::uint16_t; };
template <> struct Storage<DType::Float> { using type = float; };
template <> struct Storage<DType::Double> { using type = double; };
template <> struct Storage<DType::BFloat16> { using type = std::uint16_t; };
template <DType T> using storage_t = typename Storage<T>::type;

// Half and bfloat16 through float's bits, branch-free so loops vectorize (scaling by 2^-112 moves
// float's exponent bias, 127, to half's, 15). Equal to the small_int_to_*_bits above for
// 0 <= v < 256: such floats have no mantissa bits the shifts drop.
template <DType T> CB_HD inline storage_t<T> encode(int v) {
  if constexpr (T == DType::Half) {
    return static_cast<std::uint16_t>(float_bits(static_cast<float>(v) * 0x1p-112f) >> 13);
  } else if constexpr (T == DType::BFloat16) {
    return static_cast<std::uint16_t>(float_bits(static_cast<float>(v)) >> 16);
  } else {
    return static_cast<storage_t<T>>(v);
  }
}

// Bitwise equality: exact, and free of NaN surprises.
template <DType T> CB_HD inline bool same_bits(storage_t<T> a, storage_t<T> b) {
  if constexpr (T == DType::Float) {
    std::uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
  } else if constexpr (T == DType::Double) {
    std::uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
  } else {
    return a == b;
  }
}

}  // namespace collbench::pattern
