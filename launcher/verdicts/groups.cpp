#include "launcher/verdicts/groups.h"

#include <fmt/format.h>

#include <algorithm>

#include "bench/errors.h"
#include "reports/core/case_summary.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/run/arrival.h"
#include "reports/run/result_verdicts.h"
#include "reports/core/text_table.h"

namespace collbench {

GroupLayout make_layout(Scope scope, const report::WorldInfo& world) {
  GroupLayout l;
  l.scope = scope;
  l.group_of_rank.assign(static_cast<std::size_t>(world.ranks), 0);
  if (scope == Scope::World) {
    report::GroupInfo g{scope, 0, {}};
    for (int r = 0; r < world.ranks; ++r) g.ranks.push_back(r);
    l.groups.push_back(g);
    l.labels.push_back("all ranks");
    return l;
  }
  if (scope == Scope::Node) {
    for (const auto& n : world.nodes) {
      const int id = static_cast<int>(l.groups.size());
      l.groups.push_back({scope, id, n.ranks});
      l.labels.push_back(n.name);
      for (int r : n.ranks) l.group_of_rank[static_cast<std::size_t>(r)] = id;
    }
  } else {
    if (world.gpus_per_process > 1)
      throw UsageError("--scope rail needs one GPU per process (drop -g, launch one rank per GPU)");
    for (const auto& n : world.nodes) {
      for (std::size_t i = 0; i < n.ranks.size(); ++i) {
        if (i == l.groups.size()) {
          l.groups.push_back({scope, static_cast<int>(i), {}});
          l.labels.push_back(fmt::format("local rank {} of every node", i));
        }
        l.groups[i].ranks.push_back(n.ranks[i]);
        l.group_of_rank[static_cast<std::size_t>(n.ranks[i])] = static_cast<int>(i);
      }
    }
    for (auto& g : l.groups) std::sort(g.ranks.begin(), g.ranks.end());
  }
  for (const auto& g : l.groups)
    if (g.ranks.size() != l.groups[0].ranks.size())
      throw UsageError(fmt::format("--scope {}: groups differ in size ({} has {} ranks, {} has {}); launch the same "
                                   "number of ranks on every node",
                                   scope_name(l.scope), l.labels[0], l.groups[0].ranks.size(),
                                   l.labels[static_cast<std::size_t>(g.id)], g.ranks.size()));
  return l;
}

namespace {

// The group's arrivals, one row per rank: a process's ranks (-g) reach the collective together.
std::optional<report::CaseArrival> group_arrival(const CaseMeasurement& m, const std::vector<int>& ranks,
                                                 const report::WorldInfo& world) {
  if (m.arrival_s.empty()) return std::nullopt;
  const auto per_process = static_cast<std::size_t>(std::max(1, world.gpus_per_process));
  std::vector<std::vector<double>> arrival;
  std::vector<double> error;
  std::vector<std::string> hosts;
  for (int r : ranks) {
    const std::size_t p = static_cast<std::size_t>(r) / per_process;
    if (p >= m.arrival_s.size() || p >= m.clock_error_s.size()) return std::nullopt;
    arrival.push_back(m.arrival_s[p]);
    error.push_back(m.clock_error_s[p]);
    const auto i = static_cast<std::size_t>(r);
    hosts.push_back(i < world.rank_info.size() ? world.rank_info[i].host : "");
  }
  return report::summarize_arrival(arrival, error, ranks, hosts);
}

}  // namespace

std::vector<report::CaseResult> results_by_group(const CaseMeasurement& m, const report::RawCase& base,
                                                 double (*busbw_factor)(int), const GroupLayout& layout,
                                                 const report::WorldInfo& world, report::RankReduce how) {
  std::vector<report::CaseResult> out;
  const int per_process = std::max(1, world.gpus_per_process);
  for (std::size_t gi = 0; gi < layout.groups.size(); ++gi) {
    const auto& g = layout.groups[gi];
    std::vector<std::vector<double>> samples;
    std::optional<std::int64_t> wrong;
    std::vector<int> wrong_ranks;  // a process counts for all its GPUs, so each of its ranks is named
    int last_process = -1;
    for (int r : g.ranks) {
      samples.push_back(m.samples_s[static_cast<std::size_t>(r)]);
      const int p = r / per_process;
      const bool known = static_cast<std::size_t>(p) < m.wrong_by_process.size() && m.wrong_by_process[p];
      if (p != last_process && known) wrong = wrong.value_or(0) + *m.wrong_by_process[p];
      if (known && *m.wrong_by_process[p] > 0) wrong_ranks.push_back(r);
      last_process = p;
    }
    // Node medians only over this group's ranks.
    std::vector<report::NodeInfo> nodes;
    for (const auto& n : world.nodes) {
      report::NodeInfo local{n.name, {}};
      for (std::size_t i = 0; i < g.ranks.size(); ++i)
        if (std::find(n.ranks.begin(), n.ranks.end(), g.ranks[i]) != n.ranks.end())
          local.ranks.push_back(static_cast<int>(i));
      if (!local.ranks.empty()) nodes.push_back(local);
    }
    report::RawCase raw = base;
    raw.samples_s = &samples;
    raw.wrong = wrong;
    raw.busbw_factor = busbw_factor(static_cast<int>(g.ranks.size()));
    report::CaseResult c = report::summarize_case(raw, how, nodes);
    c.group = g;
    c.wrong_ranks = std::move(wrong_ranks);
    c.arrival = group_arrival(m, g.ranks, world);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<report::Finding> group_comparison_findings(const GroupLayout& layout,
                                                       const std::vector<report::CaseResult>& cases,
                                                       const std::vector<report::NodeInfo>& nodes) {
  if (layout.scope == Scope::World) return {};
  const bool rail = layout.scope == Scope::Rail;
  // Largest out-of-place size per op, in the order the ops were run.
  std::vector<std::pair<std::string, std::uint64_t>> largest;
  for (const auto& c : cases) {
    if (c.placement != Placement::OutOfPlace) continue;
    auto it = std::find_if(largest.begin(), largest.end(), [&](const auto& x) { return x.first == c.op; });
    if (it == largest.end())
      largest.push_back({c.op, c.bytes});
    else
      it->second = std::max(it->second, c.bytes);
  }
  std::vector<report::Finding> out;
  for (const auto& [op, bytes] : largest) {
    std::vector<report::GroupScore> scores(layout.groups.size());
    for (std::size_t g = 0; g < layout.groups.size(); ++g) {
      scores[g].label = rail ? fmt::format("local rank {}", g) : layout.labels[g];
      scores[g].ranks = layout.groups[g].ranks;
      scores[g].hosts = report::hosts_of_ranks(nodes, layout.groups[g].ranks);
    }
    for (const auto& c : cases) {
      if (c.op != op || c.bytes != bytes || c.placement != Placement::OutOfPlace) continue;
      const auto g = static_cast<std::size_t>(c.group.id);
      if (g >= scores.size() || c.time_us.median <= 0) continue;
      // busbw is computed from the mean time (as nccl-tests); rescaled to the median it resists outliers.
      scores[g].busbw_gbs = c.busbw_gbs * c.time_us.mean / c.time_us.median;
      scores[g].samples = c.time_us.samples;
      scores[g].noise_gbs = scores[g].busbw_gbs * c.time_us.stdev / c.time_us.median;
    }
    const auto what = fmt::format("{} busbw at {}", op, size_text(bytes));
    for (auto& f : report::group_findings(scores, report::judge_groups(scores),
                                          rail ? report::GroupKind::Rail : report::GroupKind::Node, what))
      out.push_back(std::move(f));
  }
  return out;
}

}  // namespace collbench
