// The value pattern written into input buffers and expected in output buffers.
//
// One header for host and device: the CUDA fill/verify kernels and the host loops call the same
// functions, so a GPU run and a CPU run check exactly the same thing.
//
// Every value is a small integer (0..16) and every reduction has exactly one contributing rank per
// element (the others contribute the operation's identity). Sums, products, maxima and minima are
// therefore exact in every datatype, in any reduction order and for any rank count, and a result
// is checked by comparing bits.
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

// A value in [kMinValue, kMaxValue] for (seed, index); a cheap integer mix, not a random generator.
CB_HD inline int base_value(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t x = index * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return kMinValue + static_cast<int>(x % (kMaxValue - kMinValue + 1));
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
CB_HD inline int owner(std::uint64_t seed, std::uint64_t index, int nranks) {
  return static_cast<int>((index + seed) % static_cast<std::uint64_t>(nranks));
}

CB_HD inline int reduce_input(const Spec& s, std::uint64_t index) {
  return owner(s.seed, index, s.nranks) == s.rank ? base_value(s.seed, index) : identity(s.redop);
}

// Element i of this rank's send buffer (send count elements, see collectives table).
CB_HD inline int input_value(const Spec& s, std::uint64_t i) {
  const std::uint64_t n = static_cast<std::uint64_t>(s.nranks);
  const std::uint64_t r = static_cast<std::uint64_t>(s.rank);
  switch (s.coll) {
    case Coll::AllReduce:
    case Coll::ReduceScatter: return reduce_input(s, i);
    case Coll::AllGather:
    case Coll::SendRecv: return base_value(s.seed, r * s.count + i);
    case Coll::AllToAll: {
      const std::uint64_t dest = i / s.count, k = i % s.count;
      return base_value(s.seed, (r * n + dest) * s.count + k);
    }
    case Coll::Broadcast: return s.rank == s.root ? base_value(s.seed, i) : kPoison;
  }
  return kPoison;
}

// Element j of this rank's result (receive count elements).
CB_HD inline int expected_value(const Spec& s, std::uint64_t j) {
  const std::uint64_t n = static_cast<std::uint64_t>(s.nranks);
  const std::uint64_t r = static_cast<std::uint64_t>(s.rank);
  switch (s.coll) {
    case Coll::AllReduce:
    case Coll::AllGather:
    case Coll::Broadcast: return base_value(s.seed, j);
    case Coll::ReduceScatter: return base_value(s.seed, r * s.count + j);
    case Coll::AllToAll: {
      const std::uint64_t src = j / s.count, k = j % s.count;
      return base_value(s.seed, (src * n + r) * s.count + k);
    }
    case Coll::SendRecv: {
      const std::uint64_t src = (r + n - 1) % n;
      return base_value(s.seed, src * s.count + j);
    }
  }
  return kPoison;
}

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

template <DType T> CB_HD inline storage_t<T> encode(int v) {
  if constexpr (T == DType::Half) {
    return small_int_to_half_bits(v);
  } else if constexpr (T == DType::BFloat16) {
    return small_int_to_bf16_bits(v);
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
