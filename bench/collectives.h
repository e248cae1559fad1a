// The collective table: one row per operation, with nccl-tests' element counts and bus-bandwidth
// factor. Adding a collective is one row here plus one call per backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kernels/types.h"

namespace collbench {

// Element counts of one call, as nccl-tests' *GetCollByteCount computes them from the requested
// count (bytes / element size). In-place, one buffer of max(send, recv) elements is used, with the
// send data at rank * send_inplace_offset and the result at rank * recv_inplace_offset.
struct CollCounts {
  std::uint64_t param = 0;  // the count passed to the collective (and printed in the table)
  std::uint64_t send = 0;
  std::uint64_t recv = 0;
  std::uint64_t send_inplace_offset = 0;
  std::uint64_t recv_inplace_offset = 0;

  std::uint64_t inplace_elements() const { return send > recv ? send : recv; }
};

struct CollectiveInfo {
  Coll coll;
  std::string_view name;  // collbench's name: all_reduce, all_to_all, ...
  bool reduces;           // takes a reduction operation
  bool rooted;            // has a root (printed in the root column)
  CollCounts (*counts)(std::uint64_t count, std::size_t elt_size, int nranks);
  double (*busbw_factor)(int nranks);
};

const CollectiveInfo& collective_info(Coll c);
std::span<const CollectiveInfo> all_collectives();
std::optional<Coll> parse_coll(std::string_view text);  // accepts allreduce, alltoall, bcast, ...
std::string coll_names();

// Bytes printed in the table's size column: max(send, recv) bytes, as nccl-tests.
std::uint64_t table_bytes(const CollCounts& c, std::size_t elt_size);

// algbw in GB/s (decimal), the same for every op: size / time.
double algbw_gbs(std::uint64_t bytes, double seconds);

}  // namespace collbench
