#include "reports/core/oversubscription.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/short_list.h"
#include "reports/core/references.h"

namespace collbench::report {

std::optional<std::string> oversubscribed(const std::vector<RankInfo>& ranks) {
  struct Machine {
    std::set<int> pids;
    std::size_t ranks = 0;
    int cores = 0;
    std::vector<std::string> hosts;
  };
  std::map<std::string, Machine> machines;
  for (const auto& r : ranks) {
    if (r.machine.empty() || r.cores <= 0) return std::nullopt;
    Machine& m = machines[r.machine];
    m.pids.insert(r.pid);
    ++m.ranks;
    m.cores = r.cores;
    if (std::find(m.hosts.begin(), m.hosts.end(), r.host) == m.hosts.end()) m.hosts.push_back(r.host);
  }
  const Machine* worst = nullptr;
  for (const auto& [_, m] : machines)
    if (static_cast<int>(m.pids.size()) > m.cores &&
        (!worst || m.pids.size() * worst->cores > worst->pids.size() * m.cores))
      worst = &m;
  if (!worst) return std::nullopt;
  const bool one_rank_each = worst->ranks == worst->pids.size();
  return fmt::format("{} {} share {} core{} on {}", worst->pids.size(), one_rank_each ? "ranks" : "processes",
                     worst->cores, worst->cores == 1 ? "" : "s", short_list(worst->hosts, 3, ", "));
}

std::optional<std::string> oversubscribed(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("world") || !doc["world"].is_object()) return std::nullopt;
  const auto& list = doc["world"].contains("rank_info") ? doc["world"]["rank_info"] : nlohmann::json();
  if (!list.is_array()) return std::nullopt;
  std::vector<RankInfo> ranks;
  for (const auto& r : list) {
    if (!r.is_object() || !r.contains("machine") || !r["machine"].is_string() || !r.contains("cores") ||
        !r["cores"].is_number_integer() || !r.contains("pid") || !r["pid"].is_number_integer())
      return std::nullopt;
    RankInfo info;
    info.pid = r["pid"].get<int>();
    info.host = r.contains("host") && r["host"].is_string() ? r["host"].get<std::string>() : "";
    info.machine = r["machine"].get<std::string>();
    info.cores = r["cores"].get<int>();
    ranks.push_back(std::move(info));
  }
  return oversubscribed(ranks);
}

Finding oversubscribed_finding(const std::string& reason) {
  return {"OVERSUBSCRIBED", Tag::Info, Priority::None,
          reason + ": they take turns on the CPUs, so which rank arrives last and drops at latency-bound sizes "
                   "are the scheduler's, not a node's; those verdicts are inconclusive here (give each rank a core, "
                   "or run fewer ranks per machine, to judge them)",
          ref::kStraggler, Subject::world()};
}

}  // namespace collbench::report
