#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/pairs/attribution.h"
#include "reports/pairs/pair_matrix.h"
#include "reports/core/references.h"

namespace collbench::report {

namespace {

constexpr std::size_t kListedInconclusive = 5;

std::string host(const std::vector<std::string>& names, int v) {
  return static_cast<std::size_t>(v) < names.size() && !names[v].empty() ? names[v] : fmt::format("n{}", v);
}

std::string partner_list(const NodeVerdict& nv, const std::vector<std::string>& names) {
  std::string out;
  for (const auto& [u, bw] : nv.worst_partners)
    out += fmt::format("{}{} {:.3g} GB/s", out.empty() ? "" : ", ", host(names, u), bw);
  return out;
}

}  // namespace

std::vector<Finding> attribution_findings(const Attribution& a, const std::vector<std::string>& names,
                                          const std::string& what, const std::vector<std::vector<int>>& ranks) {
  auto ranks_of = [&](int v) {
    return static_cast<std::size_t>(v) < ranks.size() ? ranks[v] : std::vector<int>{};
  };
  auto nodes_subject = [&](const std::vector<int>& vs) {
    std::vector<std::string> hs;
    std::vector<int> rs;
    for (int v : vs) {
      hs.push_back(host(names, v));
      for (int r : ranks_of(v)) rs.push_back(r);
    }
    return Subject::nodes(hs, rs);
  };
  std::vector<Finding> out;
  if (a.two_nodes) {
    // One pair: its figure is real, but nothing says which end (or the path between) to blame.
    double pair = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t v = 0; v < a.matrix.size(); ++v)
      for (std::size_t u = v + 1; u < a.matrix[v].size(); ++u)
        if (!std::isnan(a.matrix[v][u])) pair = a.matrix[v][u];
    out.push_back({"HUNT_TWO_NODES", Tag::Info, Priority::None,
                   fmt::format("two nodes make one pair ({:.3g} on {}): a slow pair cannot be pinned on either node "
                               "or on the path between them, so no node or link is judged; what can be told: the "
                               "node phase (each node's own ranks, with 2+ ranks per node), the pair against the "
                               "instance thresholds ('collbench run'), and the fabric rank by rank ('collbench "
                               "fabric', which pairs ranks)",
                               pair, what),
                   ref::kStraggler, nodes_subject({0, 1})});
    return out;
  }
  int stragglers = 0;
  std::vector<const NodeVerdict*> doubtful;
  for (const auto& nv : a.nodes) {
    if (nv.kind == NodeVerdict::Kind::Inconclusive) doubtful.push_back(&nv);
    if (nv.kind != NodeVerdict::Kind::Straggler) continue;
    ++stragglers;
    const std::string h = host(names, nv.node);
    out.push_back({"STRAGGLER_NODE", Tag::Fail, Priority::P1,
                   fmt::format("{}: {} {:.3g} GB/s (median over its partners), {:.0f}% below the cluster median "
                               "{:.3g} GB/s; worst partners: {}; next step (copy, not run): scontrol update "
                               "nodename={} state=drain reason=\"collbench: slow\"",
                               h, what, nv.score, 100 * nv.drop, a.cluster_median, partner_list(nv, names), h),
                   ref::kStraggler, Subject::node(h, ranks_of(nv.node))});
  }
  for (const auto& l : a.slow_links)
    out.push_back({"SLOW_LINK", Tag::Fail, Priority::P1,
                   fmt::format("{} <-> {}: {} {:.3g} GB/s, {:.0f}% below the pair median {:.3g} GB/s, while "
                               "neither node is a straggler; check the path between these two hosts",
                               host(names, l.a), host(names, l.b), what, l.median, 100 * l.drop, a.pair_median),
                   ref::kPairwise, Subject::link(host(names, l.a), host(names, l.b))});
  if (!a.fabric_wide_rounds.empty())
    out.push_back({"FABRIC_WIDE_SLOWDOWN", Tag::Warn, Priority::P1,
                   fmt::format("round{} {}: most pairs' {} fell well below the rest of the run; a fabric-wide "
                               "slowdown, not blamed on any node (those rounds were left out of the node verdicts); "
                               "rerun to see whether it persists",
                               a.fabric_wide_rounds.size() > 1 ? "s" : "", fmt::join(a.fabric_wide_rounds, ", "), what),
                   ref::kMultiNode});
  if (!doubtful.empty()) {
    std::string list;
    for (std::size_t i = 0; i < doubtful.size() && i < kListedInconclusive; ++i) {
      const NodeVerdict& nv = *doubtful[i];
      list += fmt::format("{}{}", list.empty() ? "" : "; ", host(names, nv.node));
      if (!std::isnan(nv.score))
        list += fmt::format(" {:.3g} GB/s ({:.0f}% below the cluster median)", nv.score, 100 * nv.drop);
      list += fmt::format(": {}", nv.reason);
    }
    if (doubtful.size() > kListedInconclusive) list += fmt::format("; and {} more", doubtful.size() - kListedInconclusive);
    std::vector<int> vs;
    for (const auto* nv : doubtful) vs.push_back(nv->node);
    out.push_back({"HUNT_INCONCLUSIVE", Tag::Warn, Priority::P2,
                   fmt::format("{} of {} nodes not judged on {} ({}); inconclusive, rerun with more iterations",
                               doubtful.size(), a.nodes.size(), what, list),
                   ref::kStraggler, nodes_subject(vs)});
  }
  if (!a.suspect_links.empty()) {
    std::string list;
    for (std::size_t i = 0; i < a.suspect_links.size() && i < kListedInconclusive; ++i) {
      const LinkVerdict& l = a.suspect_links[i];
      list += fmt::format("{}{} <-> {} {:.3g} GB/s ({:.0f}% below)", list.empty() ? "" : "; ", host(names, l.a),
                          host(names, l.b), l.median, 100 * l.drop);
    }
    if (a.suspect_links.size() > kListedInconclusive)
      list += fmt::format("; and {} more", a.suspect_links.size() - kListedInconclusive);
    out.push_back({"HUNT_INCONCLUSIVE", Tag::Warn, Priority::P2,
                   fmt::format("{} pair(s) below the pair median {:.3g} GB/s on {} but within the spread of the "
                               "other pairs or the noise of their own iterations ({}); inconclusive, rerun with more "
                               "iterations",
                               a.suspect_links.size(), a.pair_median, what, list),
                   ref::kPairwise,
                   a.suspect_links.size() == 1
                       ? Subject::link(host(names, a.suspect_links[0].a), host(names, a.suspect_links[0].b))
                       : Subject::world()});
  }
  if (stragglers == 0 && a.slow_links.empty() && doubtful.empty() && a.suspect_links.empty()) {
    double worst = 0;
    for (const auto& nv : a.nodes) worst = std::max(worst, nv.drop);
    out.push_back({"NO_STRAGGLER", Tag::Pass, Priority::None,
                   fmt::format("no straggler node or slow link among {} nodes on {}: cluster median {:.3g} GB/s, "
                               "slowest node {:.0f}% below it",
                               a.nodes.size(), what, a.cluster_median, 100 * worst),
                   ""});
  }
  return out;
}

std::string render_matrix(const Attribution& a, const std::vector<std::string>& names) {
  const MatrixText m = render_pair_matrix(a, a.matrix, names, {"nodes:", "      ", 10, 4, false});
  return m.legend +
         fmt::format("median busbw GB/s per node pair{}\n",
                     std::any_of(a.nodes.begin(), a.nodes.end(),
                                 [](const NodeVerdict& nv) { return nv.kind == NodeVerdict::Kind::Straggler; })
                         ? "; * = straggler"
                         : "") +
         m.table;
}

}  // namespace collbench::report
