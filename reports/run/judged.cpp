#include "reports/run/judged.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "common/short_list.h"
#include "reports/core/text_table.h"

namespace collbench::report {

std::optional<Finding> single_rank_finding(int ranks) {
  if (ranks != 1) return std::nullopt;
  return Finding{"NO_LINK_CROSSED", Tag::Warn, Priority::P2,
                 "one rank: nothing crossed NVLink, PCIe or the network, so the bandwidth figures are a copy within "
                 "one device's memory and were not judged; run with at least 2 ranks",
                 "", Subject::world()};
}

Finding incomplete_input_finding(const std::string& why) {
  return {"INPUT_INCOMPLETE", Tag::Warn, Priority::P2,
          why + "; the verdicts cover the cases it holds, not the sweep that was planned", "", Subject::world()};
}

std::optional<double> network_busbw_bound(const std::string& op, const NetworkLimit& limit) {
  const double n = limit.ranks, N = limit.nodes, B = limit.node_gbytes;
  if (limit.nodes < 2 || limit.ranks < limit.nodes || B <= 0) return std::nullopt;
  if (op == "all_reduce" || op == "all_gather" || op == "reduce_scatter") return B * N * (n - 1) / (n * (N - 1));
  if (op == "all_to_all") {
    const double g = n / N;
    return B * (n - 1) / (g * (n - g));
  }
  if (op == "broadcast" || op == "reduce" || op == "sendrecv") return B;
  return std::nullopt;
}

std::optional<Finding> implausible_values_finding(const std::vector<CaseResult>& cases,
                                                  const std::optional<NetworkLimit>& limit) {
  constexpr double kPrintedRounding = 1.05;
  std::vector<std::string> bad;
  for (const auto& c : cases) {
    std::vector<std::string> what;
    const auto impossible = [](double v) { return !std::isfinite(v) || v < 0; };
    if (impossible(c.time_us.mean) || c.time_us.mean > 1e12) what.push_back(fmt::format("time {:g} us", c.time_us.mean));
    if (impossible(c.algbw_gbs)) what.push_back(fmt::format("algbw {:g}", c.algbw_gbs));
    if (impossible(c.busbw_gbs)) what.push_back(fmt::format("busbw {:g}", c.busbw_gbs));
    if (c.wrong && *c.wrong < 0) what.push_back(fmt::format("#wrong {}", *c.wrong));
    if (limit && c.group.scope == Scope::World)
      if (const auto bound = network_busbw_bound(c.op, *limit); bound && c.busbw_gbs > *bound * kPrintedRounding)
        what.push_back(fmt::format("busbw {:.1f} GB/s, above the {:.0f} GB/s that {} nodes of {} ({:g} GB/s of "
                                   "network each) can carry",
                                   c.busbw_gbs, *bound, limit->nodes, limit->instance, limit->node_gbytes));
    if (!what.empty())
      bad.push_back(fmt::format("{} {} at {}: {}", c.op, placement_name(c.placement), size_text(c.bytes), fmt::join(what, ", ")));
  }
  if (bad.empty()) return std::nullopt;
  return Finding{"IMPLAUSIBLE_VALUES", Tag::Warn, Priority::P1,
                 fmt::format("values no measurement produces, so this input is not trusted and nothing in it was "
                             "judged healthy: {}; check where the file came from",
                             short_list(bad, 5, "; ")),
                 "", Subject::world()};
}

std::vector<Finding> without_passes(std::vector<Finding> findings) {
  std::erase_if(findings, [](const Finding& f) { return f.tag == Tag::Pass; });
  return findings;
}

}  // namespace collbench::report
