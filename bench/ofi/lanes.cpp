#include "bench/ofi/lanes.h"

#include <fmt/format.h>

#include <algorithm>

namespace collbench::ofi {

std::vector<Unit> fabric_units(const std::vector<Unit>& nodes) {
  if (nodes.size() != 1) return nodes;
  std::vector<Unit> out;
  for (int r : nodes.front().ranks) out.push_back({fmt::format("{}/r{}", nodes.front().name, r), {r}});
  return out;
}

std::vector<Lane> round_lanes(const Schedule& s, int round, const std::vector<Unit>& units) {
  std::vector<Lane> out;
  if (round < 0 || static_cast<std::size_t>(round) >= s.size()) return out;
  for (const auto& [a, b] : s[static_cast<std::size_t>(round)].pairs) {
    const auto& ra = units.at(static_cast<std::size_t>(a)).ranks;
    const auto& rb = units.at(static_cast<std::size_t>(b)).ranks;
    const std::size_t lanes = std::min(ra.size(), rb.size());
    for (std::size_t i = 0; i < lanes; ++i) out.push_back({round, a, b, static_cast<int>(i), ra[i], rb[i]});
  }
  return out;
}

std::optional<Lane> lane_of(int rank, const Schedule& s, int round, const std::vector<Unit>& units) {
  for (const Lane& l : round_lanes(s, round, units))
    if (l.rank_a == rank || l.rank_b == rank) return l;
  return std::nullopt;
}

std::vector<Unit> nodes_of(const std::vector<std::string>& host_by_rank) {
  std::vector<Unit> nodes;
  for (int r = 0; r < static_cast<int>(host_by_rank.size()); ++r) {
    const std::string& h = host_by_rank[static_cast<std::size_t>(r)];
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Unit& u) { return u.name == h; });
    if (it == nodes.end()) it = nodes.insert(nodes.end(), Unit{h, {}});
    it->ranks.push_back(r);
  }
  return nodes;
}

int local_index(const std::vector<Unit>& nodes, int rank) {
  for (const auto& n : nodes)
    for (std::size_t i = 0; i < n.ranks.size(); ++i)
      if (n.ranks[i] == rank) return static_cast<int>(i);
  return 0;
}

}  // namespace collbench::ofi
