#include "reports/pairs/pair_findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/short_list.h"
#include "reports/core/references.h"

namespace collbench::report {
namespace {

constexpr std::size_t kListed = 5;

// The words and subjects of the units the attribution judged.
struct Namer {
  const PairUnits& units;

  std::string name(int u) const {
    const auto i = static_cast<std::size_t>(u);
    return i < units.names.size() && !units.names[i].empty() ? units.names[i] : fmt::format("n{}", u);
  }
  std::vector<int> ranks(int u) const {
    const auto i = static_cast<std::size_t>(u);
    return i < units.ranks.size() ? units.ranks[i] : std::vector<int>{};
  }
  const char* unit() const { return units.are_ranks() ? "rank" : "node"; }
  const char* plural() const { return units.are_ranks() ? "ranks" : "nodes"; }

  Subject one(int u) const {
    const auto rs = ranks(u);
    if (units.are_ranks() && rs.size() == 1) return Subject::rank(rs.front(), units.host);
    return Subject::node(name(u), rs);
  }
  Subject several(const std::vector<int>& us) const {
    std::vector<std::string> hosts;
    std::vector<int> rs;
    for (int u : us) {
      hosts.push_back(name(u));
      for (int r : ranks(u)) rs.push_back(r);
    }
    if (units.are_ranks()) return Subject::ranks_on(rs, {units.host});
    return Subject::nodes(hosts, rs);
  }
};

double one_pair_value(const Attribution& a) {
  double pair = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t v = 0; v < a.matrix.size(); ++v)
    for (std::size_t u = v + 1; u < a.matrix[v].size(); ++u)
      if (!std::isnan(a.matrix[v][u])) pair = a.matrix[v][u];
  return pair;
}

std::string rerun_text(const PairWords& w) {
  return w.more_samples.empty() ? "inconclusive, rerun with more iterations"
                                : fmt::format("inconclusive, rerun with more iterations ({})", w.more_samples);
}

}  // namespace

std::string pair_value_text(PairScale s, double rate) {
  // A latency rate is 1000 / us (fabric_math.h's latency_rate), its own inverse.
  if (s == PairScale::Latency) return fmt::format("{:.1f} us", rate > 0 ? 1000.0 / rate : 0.0);
  return fmt::format("{:.3g} GB/s", rate);
}

std::string pair_worse_text(PairScale s, double drop) {
  if (s == PairScale::Latency)
    return fmt::format("{:.0f}% above", drop < 1 ? 100 * (1 / (1 - drop) - 1) : INFINITY);
  return fmt::format("{:.0f}% below", 100 * drop);
}

std::vector<Finding> pair_findings(const Attribution& a, const PairUnits& units, const PairWords& w) {
  const Namer n{units};
  auto value = [&](double rate) { return pair_value_text(w.scale, rate); };
  auto worse = [&](double drop) { return pair_worse_text(w.scale, drop); };
  std::vector<Finding> out;
  if (a.two_nodes) {
    // One pair: its figure is real, but nothing says which end (or the path between) to blame.
    out.push_back({w.one_pair_code, Tag::Info, Priority::None,
                   fmt::format("two {0}s make one pair ({1} {2}): a slow pair cannot be pinned on either {0} or on "
                               "the path between them, so no {0} or link is judged; what can be told: {3}",
                               n.unit(), w.what, value(one_pair_value(a)), w.one_pair_hint),
                   ref::kStraggler, n.several({0, 1})});
    return out;
  }

  std::vector<int> doubtful;
  std::vector<std::string> doubts;
  bool named = false;
  for (const auto& nv : a.nodes) {
    if (nv.kind == NodeVerdict::Kind::Inconclusive) {
      doubtful.push_back(nv.node);
      std::string d = n.name(nv.node);
      if (!std::isnan(nv.score))
        d += fmt::format(" {} ({} the cluster median)", value(nv.score), worse(nv.drop));
      doubts.push_back(fmt::format("{}: {}", d, nv.reason));
    }
    if (nv.kind != NodeVerdict::Kind::Straggler) continue;
    named = true;
    const std::string h = n.name(nv.node);
    std::vector<std::string> partners;
    for (const auto& [u, rate] : nv.worst_partners) partners.push_back(fmt::format("{} {}", n.name(u), value(rate)));
    std::string next = w.node_advice.empty() ? "" : "; " + w.node_advice;
    if (!units.are_ranks() && !w.drain_reason.empty())
      next += fmt::format("; next step (copy, not run): scontrol update nodename={} state=drain reason=\"{}\"", h,
                          w.drain_reason);
    out.push_back({w.slow_node_code, Tag::Fail, Priority::P1,
                   fmt::format("{}: {} {} (median over its partners), {} the cluster median {}; worst partners: {}{}", h,
                               w.what, value(nv.score), worse(nv.drop), value(a.cluster_median),
                               fmt::join(partners, ", "), next),
                   ref::kStraggler, n.one(nv.node)});
  }
  for (const auto& l : a.slow_links) {
    named = true;
    out.push_back({w.slow_link_code, Tag::Fail, Priority::P1,
                   fmt::format("{} <-> {}: {} {}, {} the pair median {}, while neither end is slow with its other "
                               "partners; check the path between these two {}",
                               n.name(l.a), n.name(l.b), w.what, value(l.median), worse(l.drop),
                               value(a.pair_median), units.are_ranks() ? "ranks" : "hosts"),
                   ref::kPairwise, Subject::link(n.name(l.a), n.name(l.b))});
  }
  if (!a.fabric_wide_rounds.empty())
    out.push_back({"FABRIC_WIDE_SLOWDOWN", Tag::Warn, Priority::P1,
                   fmt::format("round{} {}: most pairs' {} was far worse than in the other rounds; a fabric-wide "
                               "slowdown, not blamed on any {} (those rounds were left out of the verdicts); rerun to "
                               "see whether it persists",
                               a.fabric_wide_rounds.size() > 1 ? "s" : "", fmt::join(a.fabric_wide_rounds, ", "),
                               w.what, n.unit()),
                   w.wide_reference});
  if (!doubts.empty())
    out.push_back({w.inconclusive_code, Tag::Warn, Priority::P2,
                   fmt::format("{} of {} {} not judged on {} ({}); {}", doubts.size(), a.nodes.size(), n.plural(),
                               w.what, short_list(doubts, kListed, "; "), rerun_text(w)),
                   ref::kStraggler, n.several(doubtful)});
  if (!a.suspect_links.empty()) {
    std::vector<std::string> links;
    for (const auto& l : a.suspect_links)
      links.push_back(fmt::format("{} <-> {} {} ({}){}", n.name(l.a), n.name(l.b), value(l.median), worse(l.drop),
                                  l.reason.empty() ? "" : ": " + l.reason));
    const auto& first = a.suspect_links.front();
    out.push_back({w.inconclusive_code, Tag::Warn, Priority::P2,
                   fmt::format("{} pair(s) slower than the pair median {} on {}, not named ({}); {}",
                               a.suspect_links.size(), value(a.pair_median), w.what, short_list(links, kListed, "; "),
                               rerun_text(w)),
                   ref::kPairwise,
                   a.suspect_links.size() == 1 ? Subject::link(n.name(first.a), n.name(first.b)) : Subject::world()});
  }
  if (!named && doubts.empty() && a.suspect_links.empty()) {
    double worst = 0;
    for (const auto& nv : a.nodes)
      if (!std::isnan(nv.drop)) worst = std::max(worst, nv.drop);
    out.push_back({w.pass_code, Tag::Pass, Priority::None,
                   fmt::format("no slow {} or link among {} {} on {}: cluster median {}, slowest {} {} it", n.unit(),
                               a.nodes.size(), n.plural(), w.what, value(a.cluster_median), n.unit(), worse(worst)),
                   ""});
  }
  return out;
}

}  // namespace collbench::report
