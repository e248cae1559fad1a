#include "bench/collectives.h"

#include <array>
#include <cctype>

namespace collbench {
namespace {

using u64 = std::uint64_t;

CollCounts same_count(u64 count, std::size_t, int) { return {count, count, count, 0, 0}; }

// all_gather and reduce_scatter keep each rank's block a multiple of 16 bytes (nccl-tests).
u64 aligned_block(u64 count, std::size_t elt, int n) {
  const u64 per_rank = count / static_cast<u64>(n);
  const u64 align = elt >= 16 ? 1 : 16 / elt;
  return per_rank / align * align;
}

CollCounts all_gather_counts(u64 count, std::size_t elt, int n) {
  const u64 base = aligned_block(count, elt, n);
  return {base, base, base * static_cast<u64>(n), base, 0};
}

CollCounts reduce_scatter_counts(u64 count, std::size_t elt, int n) {
  const u64 base = aligned_block(count, elt, n);
  return {base, base * static_cast<u64>(n), base, 0, base};
}

// all_to_all too: each peer's block is 16-byte aligned (nccl-tests alltoall.cu,
// (count/nranks) & -(16/eltSize)).
CollCounts all_to_all_counts(u64 count, std::size_t elt, int n) {
  const u64 per_peer = aligned_block(count, elt, n);
  return {per_peer, per_peer * static_cast<u64>(n), per_peer * static_cast<u64>(n), 0, 0};
}

double all_reduce_factor(int n) { return 2.0 * (n - 1) / n; }
double spread_factor(int n) { return static_cast<double>(n - 1) / n; }
double unit_factor(int) { return 1.0; }

constexpr std::array<CollectiveInfo, kCollCount> kCollectives{{
    {Coll::AllReduce, "all_reduce", true, false, same_count, all_reduce_factor},
    {Coll::AllGather, "all_gather", false, false, all_gather_counts, spread_factor},
    {Coll::ReduceScatter, "reduce_scatter", true, false, reduce_scatter_counts, spread_factor},
    {Coll::AllToAll, "all_to_all", false, false, all_to_all_counts, spread_factor},
    {Coll::Broadcast, "broadcast", false, true, same_count, unit_factor},
    {Coll::SendRecv, "sendrecv", false, false, same_count, unit_factor},
}};

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const CollectiveInfo& collective_info(Coll c) { return kCollectives[static_cast<std::size_t>(c)]; }
std::span<const CollectiveInfo> all_collectives() { return kCollectives; }

std::optional<Coll> parse_coll(std::string_view text) {
  std::string t = squash(text);
  if (t == "bcast") t = "broadcast";
  for (const auto& row : kCollectives)
    if (squash(row.name) == t) return row.coll;
  return std::nullopt;
}

std::string coll_names() {
  std::string out;
  for (const auto& row : kCollectives) out += (out.empty() ? "" : ", ") + std::string(row.name);
  return out;
}

std::uint64_t table_bytes(const CollCounts& c, std::size_t elt_size) {
  return (c.send > c.recv ? c.send : c.recv) * elt_size;
}

double algbw_gbs(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / 1.0e9 / seconds : 0.0;
}

}  // namespace collbench
