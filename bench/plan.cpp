#include "bench/plan.h"

#include <fmt/format.h>

#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/sizes.h"

namespace collbench {

Plan make_plan(const RunOptions& opts, int world_ranks) {
  if (opts.min_bytes > opts.max_bytes)
    throw UsageError(fmt::format("-b {} is larger than -e {}; the smallest size must not exceed the largest",
                                 size_text(opts.min_bytes), size_text(opts.max_bytes)));
  if (opts.step_bytes == 0 && !(opts.factor > 1.0) && opts.min_bytes != opts.max_bytes)
    throw UsageError(fmt::format("-f {} must be greater than 1 (or use -i STEP for a linear sweep)", opts.factor));
  if (opts.root < 0 || opts.root >= world_ranks)
    throw UsageError(fmt::format("-r {} is not a rank of this run (0..{}); pick a root in that range", opts.root,
                                 world_ranks - 1));

  Plan plan;
  plan.placements = opts.placements;
  const auto sizes = sweep_sizes(opts.min_bytes, opts.max_bytes, opts.factor, opts.step_bytes);
  for (Coll coll : opts.ops) {
    const auto& info = collective_info(coll);
    for (DType dtype : opts.dtypes) {
      const std::size_t elt = dtype_info(dtype).size;
      std::string rounded;
      for (std::uint64_t size : sizes) {
        CaseRow row;
        row.coll = coll;
        row.dtype = dtype;
        row.redop = opts.redop;
        row.root = info.rooted ? opts.root : -1;
        row.requested_bytes = size;
        row.counts = info.counts(size / elt, elt, world_ranks);
        row.bytes = table_bytes(row.counts, elt);
        if (row.bytes != size && rounded.empty())
          rounded = fmt::format("{} B -> {} B", size, row.bytes);
        plan.max_send_bytes = std::max(plan.max_send_bytes, row.counts.send * elt);
        plan.max_recv_bytes = std::max(plan.max_recv_bytes, row.counts.recv * elt);
        plan.rows.push_back(row);
      }
      if (!rounded.empty())
        plan.notes.push_back(fmt::format(
            "{} {}: sizes rounded down to what {} ranks need, as nccl-tests does (first: {})", info.name,
            dtype_info(dtype).name, world_ranks, rounded));
    }
  }
  return plan;
}

void check_supported(const Plan& plan, const Backend& backend) {
  for (const auto& row : plan.rows)
    for (Placement p : plan.placements)
      if (auto why = backend.unsupported(row.call(p)))
        throw UsageError(fmt::format("{} -d {} -o {}: {}", collective_info(row.coll).name, dtype_info(row.dtype).name,
                                     redop_name(row.redop), *why));
}

}  // namespace collbench
