#include "reports/pairs/busy_hosts.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/short_list.h"
#include "reports/core/references.h"

namespace collbench::report {

bool any_host_busy(const std::vector<double>& runnable_per_core) {
  return std::any_of(runnable_per_core.begin(), runnable_per_core.end(), [](double x) { return x > 1.0; });
}

AttributionOptions busy_host_rule(AttributionOptions o) {
  o.min_drop = std::max(o.min_drop, o.max_excused);
  return o;
}

void doubt_links_on_busy_hosts(Attribution& a) {
  for (auto& l : a.slow_links) {
    l.reason = "slow while the hosts were busy, which alone can do this to a ping-pong; rerun when they are quiet";
    a.suspect_links.push_back(std::move(l));
  }
  a.slow_links.clear();
}

std::optional<Finding> busy_hosts_finding(const std::vector<double>& runnable_per_core,
                                          const std::vector<std::string>& names, const BusyWords& words) {
  std::vector<std::string> hosts, loads;
  for (std::size_t i = 0; i < runnable_per_core.size() && i < names.size(); ++i)
    if (runnable_per_core[i] > 1.0) {
      hosts.push_back(names[i]);
      loads.push_back(fmt::format("{} {:.1f}", names[i], runnable_per_core[i]));
    }
  if (hosts.empty()) return std::nullopt;
  return Finding{"HOSTS_BUSY", Tag::Info, Priority::None,
                 fmt::format("{} of {} nodes had more runnable tasks than cores during {} ({} per core): CPU "
                             "contention slows pairs{} by itself, so only a pair at a quarter of the others or below "
                             "is called slow{}",
                             hosts.size(), names.size(), words.during, short_list(loads, 5, ", "), words.slows,
                             words.also),
                 ref::kStraggler, Subject::nodes(hosts)};
}

}  // namespace collbench::report
