#include "bench/ofi/polling.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace collbench::ofi {

const char* polling_name(Polling p) { return p == Polling::Spin ? "spin" : "yield"; }

PollingPlan plan_polling(const std::vector<std::string>& machine_by_rank, const std::vector<int>& cores_by_rank,
                         const std::vector<std::string>& host_by_rank) {
  std::map<std::string, int> ranks_on;
  for (const auto& m : machine_by_rank) ++ranks_on[m];
  PollingPlan plan;
  int spinning = 0;
  // The reason names the most crowded machine: the most ranks per core, unknown cores worst.
  auto crowding = [](int n, int cores) { return cores > 0 ? double(n) / cores : HUGE_VAL; };
  int most = 0, most_cores = 0;
  std::string crowded_host;
  for (std::size_t r = 0; r < machine_by_rank.size(); ++r) {
    const int n = ranks_on[machine_by_rank[r]], cores = cores_by_rank.at(r);
    const bool fits = cores > 0 && n <= cores;
    plan.by_rank.push_back(fits ? Polling::Spin : Polling::Yield);
    spinning += fits ? 1 : 0;
    if (most == 0 || crowding(n, cores) > crowding(most, most_cores))
      most = n, most_cores = cores, crowded_host = host_by_rank.at(r);
  }
  const auto total = static_cast<int>(plan.by_rank.size());
  plan.summary = spinning == total ? "spin" : spinning == 0 ? "yield" : "mixed";
  plan.reason = most_cores > 0 ? fmt::format("{} rank{} on {} core{}", most, most == 1 ? "" : "s", most_cores,
                                             most_cores == 1 ? "" : "s")
                               : fmt::format("{} rank{}, core count unknown", most, most == 1 ? "" : "s");
  if (ranks_on.size() > 1) plan.reason += fmt::format(" on the most crowded machine, {}'s", crowded_host);
  return plan;
}

PollingPlan forced_polling(Polling p, int ranks) {
  return {std::vector<Polling>(static_cast<std::size_t>(std::max(ranks, 0)), p), polling_name(p), "--polling"};
}

}  // namespace collbench::ofi
