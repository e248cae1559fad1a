// Counts and bus bandwidth against nccl-tests' own formulas (src/*.cu *GetCollByteCount, *GetBw),
// and against rows of published nccl-tests outputs.
#include <gtest/gtest.h>

#include "bench/collectives.h"
#include "bench/dtype.h"
#include "common/names.h"

namespace collbench {
namespace {

// nccl-tests: algbw = baseBw; busbw = baseBw * factor, with baseBw over the op's total bytes.
double nccl_tests_busbw(Coll c, std::uint64_t param, std::size_t elt, double sec, int n) {
  const double p = static_cast<double>(param), s = static_cast<double>(elt);
  switch (c) {
    case Coll::AllReduce: return p * s / 1e9 / sec * (2.0 * (n - 1) / n);
    case Coll::AllGather:
    case Coll::ReduceScatter:
    case Coll::AllToAll: return p * s * n / 1e9 / sec * (static_cast<double>(n - 1) / n);
    case Coll::Broadcast:
    case Coll::SendRecv: return p * s / 1e9 / sec;
  }
  return 0;
}

}  // namespace

TEST(Collectives, TheTableMeasuresExactlyTheNamedOps) {
  std::vector<std::string_view> measured;
  for (const auto& c : all_collectives()) measured.push_back(c.name);
  EXPECT_EQ(measured, std::vector<std::string_view>(kOpNames.begin(), kOpNames.end()));
  EXPECT_TRUE(is_op_name("all_to_all"));
  EXPECT_FALSE(is_op_name("alltoall"));
}

TEST(Collectives, CountsFollowNcclTests) {
  // all_reduce: everything is count.
  auto c = collective_info(Coll::AllReduce).counts(1000, 4, 8);
  EXPECT_EQ(c.param, 1000u);
  EXPECT_EQ(c.send, 1000u);
  EXPECT_EQ(c.recv, 1000u);
  // all_gather: per-rank block rounded to 16 bytes; recv is n blocks; in-place send at rank*block.
  c = collective_info(Coll::AllGather).counts(1000, 4, 8);  // 125 per rank -> 124 (multiple of 4 floats)
  EXPECT_EQ(c.param, 124u);
  EXPECT_EQ(c.send, 124u);
  EXPECT_EQ(c.recv, 992u);
  EXPECT_EQ(c.send_inplace_offset, 124u);
  EXPECT_EQ(c.recv_inplace_offset, 0u);
  // reduce_scatter: the mirror image.
  c = collective_info(Coll::ReduceScatter).counts(1000, 8, 3);  // 333 -> 332 (multiple of 2 doubles)
  EXPECT_EQ(c.param, 332u);
  EXPECT_EQ(c.send, 996u);
  EXPECT_EQ(c.recv, 332u);
  EXPECT_EQ(c.recv_inplace_offset, 332u);
  // all_to_all: per-peer count in 16-byte blocks, as nccl-tests: 1001 floats / 4 = 250 -> 248.
  c = collective_info(Coll::AllToAll).counts(1001, 4, 4);
  EXPECT_EQ(c.param, 248u);
  EXPECT_EQ(c.send, 992u);
  EXPECT_EQ(c.recv, 992u);
  // 1 MiB of int8 over 3 ranks: 349525 per peer -> 349520 (a multiple of 16 bytes).
  c = collective_info(Coll::AllToAll).counts(1 << 20, 1, 3);
  EXPECT_EQ(c.param, 349520u);
  EXPECT_EQ(c.send, 3u * 349520u);
  // Doubles: blocks of 2.
  EXPECT_EQ(collective_info(Coll::AllToAll).counts(1001, 8, 4).param, 250u);
  EXPECT_EQ(collective_info(Coll::AllToAll).counts(1003, 8, 1).param, 1002u);
  for (Coll k : {Coll::Broadcast, Coll::SendRecv}) {
    c = collective_info(k).counts(77, 1, 5);
    EXPECT_EQ(c.param, 77u);
    EXPECT_EQ(c.send, 77u);
  }
}

TEST(Collectives, BusBandwidthMatchesNcclTestsForEveryOpAndRankCount) {
  for (const auto& info : all_collectives()) {
    for (int n : {1, 2, 3, 4, 8, 16, 64, 1024}) {
      for (DType t : {DType::Int8, DType::Half, DType::Float, DType::Double}) {
        const std::size_t elt = dtype_info(t).size;
        const std::uint64_t count = (64ull << 20) / elt;
        const auto c = info.counts(count, elt, n);
        const double sec = 1.234e-3;
        const double ours = algbw_gbs(table_bytes(c, elt), sec) * info.busbw_factor(n);
        EXPECT_NEAR(ours, nccl_tests_busbw(info.coll, c.param, elt, sec, n), 1e-9)
            << info.name << " n=" << n << " " << dtype_info(t).name;
      }
    }
  }
}

TEST(Collectives, ReproducesPublishedRows) {
  // Nebius 2x8 H100 all_reduce, 8 GiB: time 34448.4 us, algbw 249.36, busbw 467.54 (16 ranks).
  auto ar = collective_info(Coll::AllReduce).counts(8589934592ull / 4, 4, 16);
  EXPECT_EQ(ar.param, 2147483648u);
  const double alg = algbw_gbs(table_bytes(ar, 4), 34448.4e-6);
  EXPECT_NEAR(alg, 249.36, 0.005);
  EXPECT_NEAR(alg * collective_info(Coll::AllReduce).busbw_factor(16), 467.54, 0.01);
  // 8x A100 alltoall, 8 GiB: count column 268435456, time 33508 us, algbw 256.36, busbw 224.31.
  auto a2a = collective_info(Coll::AllToAll).counts(8589934592ull / 4, 4, 8);
  EXPECT_EQ(a2a.param, 268435456u);
  EXPECT_EQ(table_bytes(a2a, 4), 8589934592u);
  const double alg2 = algbw_gbs(table_bytes(a2a, 4), 33508e-6);
  EXPECT_NEAR(alg2, 256.36, 0.01);
  EXPECT_NEAR(alg2 * collective_info(Coll::AllToAll).busbw_factor(8), 224.31, 0.01);
}

TEST(Collectives, ParsesNamesAndAliases) {
  EXPECT_EQ(parse_coll("all_reduce"), Coll::AllReduce);
  EXPECT_EQ(parse_coll("allreduce"), Coll::AllReduce);
  EXPECT_EQ(parse_coll("alltoall"), Coll::AllToAll);
  EXPECT_EQ(parse_coll("bcast"), Coll::Broadcast);
  EXPECT_EQ(parse_coll("reduce-scatter"), Coll::ReduceScatter);
  EXPECT_FALSE(parse_coll("gather").has_value());
  EXPECT_EQ(parse_dtype("bf16"), DType::BFloat16);
  EXPECT_EQ(parse_dtype("FLOAT"), DType::Float);
  EXPECT_FALSE(parse_dtype("float128").has_value());
  EXPECT_EQ(parse_redop("max"), RedOp::Max);
  EXPECT_FALSE(parse_redop("avg").has_value());
}

}  // namespace collbench
