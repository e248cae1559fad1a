// The value pattern must make every reduction exact in every datatype, for any rank count and any
// reduction order: that is what lets the check compare bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/collectives.h"
#include "bench/dtype.h"
#include "bench/host_pattern.h"
#include "kernels/dispatch.h"
#include "kernels/pattern.h"

namespace collbench {
namespace {

double apply(RedOp op, double a, double b) {
  switch (op) {
    case RedOp::Sum: return a + b;
    case RedOp::Prod: return a * b;
    case RedOp::Max: return std::max(a, b);
    case RedOp::Min: return std::min(a, b);
  }
  return 0;
}

// Largest integer below which every integer is exact in the type (2^(mantissa+1)).
double exact_limit(DType t) {
  switch (t) {
    case DType::Half: return 2048;
    case DType::BFloat16: return 256;
    case DType::Int8: return 127;
    case DType::Uint8: return 255;
    default: return 1 << 24;
  }
}

}  // namespace

TEST(Pattern, HalfAndBfloat16BitsAreIeee) {
  EXPECT_EQ(pattern::small_int_to_half_bits(0), 0x0000);
  EXPECT_EQ(pattern::small_int_to_half_bits(1), 0x3C00);
  EXPECT_EQ(pattern::small_int_to_half_bits(2), 0x4000);
  EXPECT_EQ(pattern::small_int_to_half_bits(3), 0x4200);
  EXPECT_EQ(pattern::small_int_to_half_bits(15), 0x4B80);
  EXPECT_EQ(pattern::small_int_to_half_bits(16), 0x4C00);
  EXPECT_EQ(pattern::small_int_to_bf16_bits(1), 0x3F80);
  EXPECT_EQ(pattern::small_int_to_bf16_bits(15), 0x4170);
  EXPECT_EQ(pattern::small_int_to_bf16_bits(16), 0x4180);
}

// Every partial reduction, in forward and reverse rank order, stays an integer that every type
// holds exactly, and the result is the expected value.
TEST(Pattern, ReductionsExactForEveryTypeOpAndRankCountUpTo1024) {
  for (int n : {1, 2, 3, 5, 8, 64, 257, 1024}) {
    for (int o = 0; o < kRedOpCount; ++o) {
      const RedOp op = static_cast<RedOp>(o);
      for (Coll coll : {Coll::AllReduce, Coll::ReduceScatter}) {
        const std::uint64_t count = coll == Coll::AllReduce ? 64 : 2;  // elements of each rank's result
        const std::uint64_t total = coll == Coll::AllReduce ? count : count * static_cast<std::uint64_t>(n);
        double largest = 0;
        for (std::uint64_t i = 0; i < total; ++i) {
          double fwd = pattern::identity(op), rev = pattern::identity(op);
          for (int r = 0; r < n; ++r) {
            fwd = apply(op, fwd, pattern::input_value({coll, op, 99, r, n, 0, count}, i));
            rev = apply(op, rev, pattern::input_value({coll, op, 99, n - 1 - r, n, 0, count}, i));
            largest = std::max({largest, std::abs(fwd), std::abs(rev)});
            ASSERT_EQ(fwd, std::floor(fwd));
          }
          ASSERT_EQ(fwd, rev);
          const int result_rank = coll == Coll::AllReduce ? 0 : static_cast<int>(i / count);
          const std::uint64_t j = coll == Coll::AllReduce ? i : i % count;
          ASSERT_EQ(fwd, pattern::expected_value({coll, op, 99, result_rank, n, 0, count}, j))
              << "n=" << n << " op=" << redop_name(op) << " i=" << i;
        }
        for (const auto& d : all_dtypes()) EXPECT_LE(largest, exact_limit(d.type)) << d.name << " n=" << n;
      }
    }
  }
}

// Data-movement collectives: simulate the exchange and compare with expected_value.
TEST(Pattern, MovementOpsDeliverWhatEachRankExpects) {
  for (int n : {1, 2, 3, 4, 7}) {
    const std::uint64_t p = 5;
    auto in = [&](Coll c, int r, std::uint64_t i) { return pattern::input_value({c, RedOp::Sum, 3, r, n, 1 % n, p}, i); };
    auto ex = [&](Coll c, int r, std::uint64_t j) {
      return pattern::expected_value({c, RedOp::Sum, 3, r, n, 1 % n, p}, j);
    };
    for (int r = 0; r < n; ++r) {
      for (std::uint64_t j = 0; j < p * n; ++j) {
        EXPECT_EQ(ex(Coll::AllGather, r, j), in(Coll::AllGather, static_cast<int>(j / p), j % p));
        // all_to_all: block b of rank r's result is block r of rank b's input.
        EXPECT_EQ(ex(Coll::AllToAll, r, j), in(Coll::AllToAll, static_cast<int>(j / p), r * p + j % p));
      }
      for (std::uint64_t j = 0; j < p; ++j) {
        EXPECT_EQ(ex(Coll::Broadcast, r, j), in(Coll::Broadcast, 1 % n, j));
        EXPECT_EQ(ex(Coll::SendRecv, r, j), in(Coll::SendRecv, (r + n - 1) % n, j));
      }
    }
  }
}

TEST(HostPattern, FillThenCountFindsExactlyTheSpoiledElements) {
  for (const auto& d : all_dtypes()) {
    const pattern::Spec spec{Coll::AllGather, RedOp::Sum, 7, 0, 1, 0, 1000};
    std::vector<std::byte> buf(1000 * d.size);
    host_fill_input(d.type, buf.data(), 1000, spec);
    EXPECT_EQ(host_count_wrong(d.type, buf.data(), 1000, spec), 0) << d.name;
    host_fill_value(d.type, buf.data() + 10 * d.size, 3, pattern::kPoison);
    EXPECT_EQ(host_count_wrong(d.type, buf.data(), 1000, spec), 3) << d.name;
  }
}

}  // namespace collbench
