// The whole job against the instance type's thresholds: the communicator that spans every rank on
// more than one node, its AllReduce busbw per size judged by judge_thresholds
// (reports/thresholds/threshold_verdicts.h), as analyze judges an nccl-tests table.
//
// The Inspector's coll_busbw_gbs is nccl-tests' busbw: in NVIDIA/nccl at 5067397c,
// plugins/profiler/inspector/README.md lines 190-212, an AllReduce on 8 ranks reports
// coll_algobw_gbs 277.210914 and coll_busbw_gbs 485.119099, a factor of 1.75 = 2(n-1)/n.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "common/units.h"
#include "reports/core/stats.h"
#include "reports/inspector/inspector_rules.h"
#include "reports/inspector/inspector_rules_common.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench::report::inspector {
using namespace detail;

std::vector<Finding> job_threshold_findings(const Job& job, const std::optional<InstanceThresholds>& thresholds) {
  auto skipped = [](const std::string& why) {
    return std::vector<Finding>{thresholds_skipped(why + "; the whole job's busbw is not judged", /*chosen=*/true)};
  };
  if (!thresholds)
    return skipped("no thresholds for the job's instance type (give --instance-type, or --thresholds FILE)");
  // The job's ranks: one a process, or more where a process drives several GPUs (its largest
  // communicator then has more ranks than there are processes).
  int job_ranks = static_cast<int>(job.processes.size());
  for (const auto& c : job.comms) job_ranks = std::max(job_ranks, c.n_ranks);
  const Comm* world = nullptr;
  for (const auto& c : job.comms)
    if (c.n_ranks == job_ranks && comm_hosts(job, c).size() > 1 && (!world || c.joined > world->joined)) world = &c;
  if (!world)
    return skipped(fmt::format("no communicator spans all {} ranks on more than one node", job_ranks));
  const auto world_hosts = comm_hosts(job, *world);
  RunSpan span;
  span.nodes = std::max(world->nnodes, static_cast<int>(world_hosts.size()));
  span.ranks = world->n_ranks;
  span.hosts.assign(world_hosts.begin(), world_hosts.end());

  // Its AllReduce sizes, each as one case: the median over its joined collectives of each one's
  // own speed (the highest busbw any rank reported).
  std::vector<CaseResult> cases;
  for (const auto& s : world->series) {
    if (s.coll != "AllReduce" || s.busbw.size() < kMinSeries) continue;
    std::vector<double> v(s.busbw.begin(), s.busbw.end());
    CaseResult c;
    c.op = "all_reduce", c.dtype = "median", c.redop = "sum", c.bytes = s.bytes;
    c.group.scope = Scope::World;
    c.busbw_gbs = median(v);
    cases.push_back(std::move(c));
  }
  if (cases.empty())
    return skipped(fmt::format("{}, the communicator of all {} ranks, has no AllReduce size with {} joined "
                               "collectives",
                               world->id, job_ranks, kMinSeries));
  const std::uint64_t largest = std::max_element(cases.begin(), cases.end(), [](const auto& a, const auto& b) {
                                  return a.bytes < b.bytes;
                                })->bytes;
  // The rows that judge this node count at a size the job reached (judge_thresholds takes the
  // nearest size at or above the row's); a training job's sizes are its own, so a row above them is
  // said as INFO, not as the sweep that stopped short.
  InstanceThresholds judged = *thresholds;
  judged.rows.clear();
  std::vector<std::string> above;
  for (const auto& row : thresholds->rows) {
    if (row.op != "all_reduce" || !row_applies(row, span.nodes)) continue;
    if (row.bytes <= largest) judged.rows.push_back(row);
    else above.push_back(size_text(row.bytes));
  }
  std::vector<std::string> sizes;
  for (const auto& c : cases) sizes.push_back(size_text(c.bytes));
  if (judged.rows.empty())
    return skipped(above.empty()
                       ? fmt::format("{} has no all_reduce row for {} nodes", thresholds->instance_type, span.nodes)
                       : fmt::format("{} judges all_reduce on {} nodes at {}, and the job's AllReduce sizes ({}) are "
                                     "all below that",
                                     thresholds->instance_type, span.nodes, fmt::join(above, ", "),
                                     fmt::join(sizes, ", ")));
  const std::string basis =
      fmt::format("the Inspector's busbw of {} ({} ranks, placement unknown); {}", world->id, world->n_ranks,
                  rests_on(world->joined, 1, static_cast<std::size_t>(world->n_ranks),
                           minutes(world->first_ts_us, world->last_ts_us)));
  std::vector<Finding> out = judge_thresholds(cases, judged, span);
  for (auto& f : out) {
    if (const auto at = f.message.find(" (out-of-place)"); at != std::string::npos) f.message.erase(at, 15);
    f.message += "; " + basis;
  }
  return out;
}

}  // namespace collbench::report::inspector
