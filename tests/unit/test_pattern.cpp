// The value pattern must make every reduction exact in every datatype, for any rank count and any
// reduction order: that is what lets the check compare bits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
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

// The device kernels encode through the same functions; these must be the IEEE bits.
TEST(Pattern, EncodeGivesIeeeBitsOfSmallIntegers) {
  for (int v = 0; v < 256; ++v) {
    EXPECT_EQ(pattern::encode<DType::Half>(v), pattern::small_int_to_half_bits(v)) << v;
    EXPECT_EQ(pattern::encode<DType::BFloat16>(v), pattern::small_int_to_bf16_bits(v)) << v;
  }
}

TEST(Pattern, TableHoldsValidValuesTwiceOver) {
  static constexpr pattern::Table table = pattern::make_table();
  for (std::uint32_t j = 0; j < sizeof table.v; ++j) {
    ASSERT_EQ(table.v[j], pattern::table_entry(j % pattern::kChunk)) << j;
    ASSERT_GE(table.v[j], pattern::kMinValue);
    ASSERT_LE(table.v[j], pattern::kMaxValue);
  }
}

// A check only catches misplaced data if other places hold other values: blocks of different
// ranks, a block shifted by a few elements, or the data of another seed must mostly differ,
// including blocks a whole number of chunks apart.
TEST(Pattern, BlocksOfOtherRanksShiftsAndSeedsDiffer) {
  const std::uint64_t n = pattern::kChunk;
  auto same = [&](std::uint64_t seed_a, std::uint64_t a, std::uint64_t seed_b, std::uint64_t b) {
    std::uint64_t equal = 0;
    for (std::uint64_t k = 0; k < n; ++k)
      equal += pattern::base_value(seed_a, a + k) == pattern::base_value(seed_b, b + k);
    return static_cast<double>(equal) / static_cast<double>(n);
  };
  for (std::uint64_t r = 1; r < 8; ++r) EXPECT_LT(same(7, 0, 7, r * n), 0.15) << "chunk " << r;
  for (std::uint64_t d : {1, 2, 3, 100, 4097}) EXPECT_LT(same(7, 0, 7, d), 0.15) << "shift " << d;
  EXPECT_LT(same(7, 0, 8, 0), 0.15);
  for (std::uint64_t i = 0; i < 100000; ++i) {
    ASSERT_GE(pattern::base_value(3, i), pattern::kMinValue);
    ASSERT_LE(pattern::base_value(3, i), pattern::kMaxValue);
  }
}

// Shapes that cross chunk edges inside rows, rows of odd lengths, and rank counts on both sides
// of the host loops' blocks (128 to 1024 elements).
struct Shape {
  int rank, nranks;
  std::uint64_t count;
};
constexpr Shape kShapes[] = {{0, 1, 1},       {1, 2, 1000},    {3, 8, 4099},     {2, 3, 70001}, {5, 65, 700},
                             {200, 257, 300}, {999, 1000, 70}, {1400, 1500, 9}, {0, 4, 65536}};

std::uint64_t send_count(Coll c, const Shape& s) {
  const auto n = static_cast<std::uint64_t>(s.nranks);
  return c == Coll::AllToAll || c == Coll::ReduceScatter ? s.count * n : s.count;
}
std::uint64_t recv_count(Coll c, const Shape& s) {
  const auto n = static_cast<std::uint64_t>(s.nranks);
  return c == Coll::AllToAll || c == Coll::AllGather ? s.count * n : s.count;
}

// encode(value(i)) for i < count, one element at a time.
std::vector<std::byte> elementwise(DType t, std::uint64_t count, const pattern::Spec& spec, bool input) {
  std::vector<std::byte> out(count * dtype_info(t).size);
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    auto* p = reinterpret_cast<pattern::storage_t<T>*>(out.data());
    for (std::uint64_t i = 0; i < count; ++i)
      p[i] = pattern::encode<T>(input ? pattern::input_value(spec, i) : pattern::expected_value(spec, i));
  });
  return out;
}

std::string describe(DType t, const pattern::Spec& s) {
  return std::string(dtype_info(t).name) + " coll " + std::to_string(static_cast<int>(s.coll)) + " rank " +
         std::to_string(s.rank) + "/" + std::to_string(s.nranks) + " count " + std::to_string(s.count);
}

TEST(HostPattern, RowWiseFillAndCountEqualElementWiseDefinition) {
  for (const auto& d : all_dtypes()) {
    for (int c = 0; c < kCollCount; ++c) {
      for (const Shape& sh : kShapes) {
        for (std::uint64_t seed : {std::uint64_t{11}, ~std::uint64_t{0} - 3}) {
          const auto coll = static_cast<Coll>(c);
          const pattern::Spec spec{coll, static_cast<RedOp>(c % kRedOpCount), seed, sh.rank, sh.nranks, 1 % sh.nranks,
                                   sh.count};
          const std::uint64_t n_in = send_count(coll, sh), n_out = recv_count(coll, sh);
          std::vector<std::byte> got(n_in * d.size);
          host_fill_input(d.type, got.data(), n_in, spec);
          ASSERT_EQ(got, elementwise(d.type, n_in, spec, true)) << describe(d.type, spec);

          auto want = elementwise(d.type, n_out, spec, false);
          ASSERT_EQ(host_count_wrong(d.type, want.data(), n_out, spec), 0) << describe(d.type, spec);
          std::int64_t spoiled = 0;
          for (std::uint64_t j = 0; j < n_out; j += n_out / 5 + 1, ++spoiled)
            host_fill_value(d.type, want.data() + j * d.size, 1, pattern::kPoison);
          ASSERT_EQ(host_count_wrong(d.type, want.data(), n_out, spec), spoiled) << describe(d.type, spec);
        }
      }
    }
  }
}

// On data that is mostly wrong (an input fill checked as a result) the count is still exact.
TEST(HostPattern, CountWrongIsExactOnArbitraryData) {
  for (const auto& d : all_dtypes()) {
    for (int c = 0; c < kCollCount; ++c) {
      const pattern::Spec spec{static_cast<Coll>(c), RedOp::Min, 7, 2, 3, 1, 70001};
      const std::uint64_t n = std::min(send_count(spec.coll, {2, 3, 70001}), recv_count(spec.coll, {2, 3, 70001}));
      const auto data = elementwise(d.type, n, spec, true), want = elementwise(d.type, n, spec, false);
      std::int64_t differ = 0;
      for (std::uint64_t j = 0; j < n; ++j)
        differ += std::memcmp(data.data() + j * d.size, want.data() + j * d.size, d.size) != 0;
      EXPECT_EQ(host_count_wrong(d.type, data.data(), n, spec), differ) << describe(d.type, spec);
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
