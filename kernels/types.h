// Enumerations shared by host code and device code. No dependencies, no CUDA.
#pragma once

#include <cstdint>

namespace collbench {

enum class DType : std::uint8_t { Int8, Uint8, Int32, Uint32, Int64, Uint64, Half, Float, Double, BFloat16 };
inline constexpr int kDTypeCount = 10;

enum class RedOp : std::uint8_t { Sum, Prod, Max, Min };
inline constexpr int kRedOpCount = 4;

enum class Coll : std::uint8_t { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, SendRecv };
inline constexpr int kCollCount = 6;

}  // namespace collbench
