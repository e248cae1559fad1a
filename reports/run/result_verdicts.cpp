#include "reports/run/result_verdicts.h"
#include "reports/core/references.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "reports/env/nccl_log.h"  // describe_ranks

namespace collbench::report {

std::vector<std::string> hosts_of_ranks(const std::vector<NodeInfo>& nodes, const std::vector<int>& ranks) {
  std::vector<std::string> out;
  for (int r : ranks)
    for (const auto& n : nodes)
      if (std::find(n.ranks.begin(), n.ranks.end(), r) != n.ranks.end() &&
          std::find(out.begin(), out.end(), n.name) == out.end())
        out.push_back(n.name);
  return out;
}

std::vector<Finding> result_findings(const std::vector<CaseResult>& cases, const std::vector<NodeInfo>& nodes) {
  std::int64_t wrong = 0;
  int bad = 0, unchecked = 0;
  const CaseResult* first = nullptr;
  std::set<int> wrong_ranks;
  for (const auto& c : cases) {
    if (!c.wrong) ++unchecked;
    else if (*c.wrong > 0) {
      wrong += *c.wrong;
      if (bad++ == 0) first = &c;
      wrong_ranks.insert(c.wrong_ranks.begin(), c.wrong_ranks.end());
    }
  }
  std::vector<Finding> out;
  if (bad > 0) {
    const std::vector<int> ranks(wrong_ranks.begin(), wrong_ranks.end());
    const auto hosts = hosts_of_ranks(nodes, ranks);
    const std::string where =
        ranks.empty() ? ""
                      : fmt::format(" on {}{}", describe_ranks(ranks),
                                    hosts.empty() ? "" : fmt::format(" ({})", fmt::join(hosts, ", ")));
    out.push_back({"WRONG_RESULTS", Tag::Fail, Priority::P0,
                   fmt::format("{} wrong elements{} in {} of {} cases; first: {} {} {} {} B (expected exact results)",
                               wrong, where, bad, cases.size(), first->op, first->dtype, placement_name(first->placement),
                               first->bytes),
                   ref::kHardware, ranks.empty() ? Subject::world() : Subject::ranks_on(ranks, hosts)});
  }
  else if (cases.size() > static_cast<std::size_t>(unchecked))
    out.push_back({"RESULTS_EXACT", Tag::Pass, Priority::None,
                   fmt::format("every checked element of {} cases was exact", cases.size() - unchecked), "",
                   Subject::world()});
  if (unchecked > 0)
    out.push_back({"RESULTS_UNCHECKED", Tag::Info, Priority::None,
                   fmt::format("{} cases were not checked (-c 0, validation off, or an in-place op that cannot be checked)",
                               unchecked),
                   "", Subject::world()});
  return out;
}

}  // namespace collbench::report
