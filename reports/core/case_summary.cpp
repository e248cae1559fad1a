#include "reports/core/case_summary.h"

namespace collbench::report {

CaseResult summarize_case(const RawCase& raw, RankReduce how, const std::vector<NodeInfo>& nodes) {
  CaseResult c;
  c.op = raw.op;
  c.dtype = raw.dtype;
  c.redop = raw.redop;
  c.placement = raw.placement;
  c.root = raw.root;
  c.bytes = raw.bytes;
  c.count = raw.count;
  c.requested_bytes = raw.requested_bytes;
  c.wrong = raw.wrong;
  c.stop_reason = raw.stop_reason;
  c.cpu_wait_share = raw.cpu_wait_share;

  const auto& samples = *raw.samples_s;
  c.group.ranks.resize(samples.size());
  for (std::size_t r = 0; r < samples.size(); ++r) c.group.ranks[r] = static_cast<int>(r);

  std::vector<double> per_iter = reduce_across_ranks(samples, how);
  for (double& s : per_iter) s *= 1e6;
  c.time_us = summarize(per_iter);

  // Bandwidth from the mean time, as nccl-tests divides its loop time by the iteration count.
  if (c.time_us.mean > 0) {
    c.algbw_gbs = static_cast<double>(raw.bytes) / 1e3 / c.time_us.mean;  // bytes / us / 1e3 = GB/s
    c.busbw_gbs = c.algbw_gbs * raw.busbw_factor;
  }

  c.rank_median_us.reserve(samples.size());
  for (const auto& s : samples) c.rank_median_us.push_back(median(s) * 1e6);
  for (const auto& node : nodes) {
    std::vector<double> medians;
    for (int r : node.ranks)
      if (r >= 0 && static_cast<std::size_t>(r) < c.rank_median_us.size()) medians.push_back(c.rank_median_us[r]);
    c.node_median_us.push_back({node.name, median(medians)});
  }
  return c;
}

}  // namespace collbench::report
