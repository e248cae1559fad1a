// The list of cases a run will measure, checked against the world before anything is allocated.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/backend.h"
#include "bench/options.h"

namespace collbench {

// One row of the table: an op, a datatype and a size; measured once per placement.
struct CaseRow {
  Coll coll = Coll::AllReduce;
  DType dtype = DType::Float;
  RedOp redop = RedOp::Sum;
  int root = -1;  // -1 for ops without a root, as nccl-tests prints
  std::uint64_t requested_bytes = 0;
  CollCounts counts;
  std::uint64_t bytes = 0;  // nccl-tests' size column

  CallShape call(Placement p) const { return {coll, dtype, redop, root < 0 ? 0 : root, counts, p}; }
};

struct Plan {
  std::vector<CaseRow> rows;  // grouped by op, then datatype, then size
  std::vector<Placement> placements;
  std::vector<std::string> notes;  // sizes rounded to what an op needs
  std::uint64_t max_send_bytes = 0;
  std::uint64_t max_recv_bytes = 0;

  std::size_t case_count() const { return rows.size() * placements.size(); }
};

// Throws UsageError for options that cannot make a plan (sizes, root, ops that do not reduce).
Plan make_plan(const RunOptions& opts, int world_ranks);

// Throws UsageError when the backend cannot run some row (type, op or count it does not support).
void check_supported(const Plan& plan, const Backend& backend);

}  // namespace collbench
