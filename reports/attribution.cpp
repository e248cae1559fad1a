#include "reports/attribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "reports/references.h"
#include "reports/stats.h"

namespace collbench::report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A straggler is slow with (almost) every partner. More normal pairs than this share means its
// pairs disagree (a slow link, or noise), and the node is not accused.
constexpr double kMaxNormalShare = 0.25;
constexpr std::size_t kWorstPartners = 3;
constexpr std::size_t kListedInconclusive = 5;

struct Pair {
  int a = 0, b = 0;
  double median = 0;
  std::size_t samples = 0;
  double noise = 0;  // scaled MAD of its samples
};

// Samples pooled per unordered pair over the rounds kept; adj[v] = (partner, index into pairs).
struct Pooled {
  std::vector<Pair> pairs;
  std::vector<std::vector<std::pair<int, int>>> adj;
};

std::pair<int, int> key(const PairSample& s) { return s.a < s.b ? std::pair{s.a, s.b} : std::pair{s.b, s.a}; }

Pooled pool(const std::vector<PairSample>& samples, int n, const std::set<int>& skip_rounds) {
  // (pair key, sample index), sorted: keys inline keep the sort cache-friendly at 10^6 samples.
  std::vector<std::pair<std::pair<int, int>, std::size_t>> idx;
  idx.reserve(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (!samples[i].busbw_gbs.empty() && !skip_rounds.count(samples[i].round)) idx.push_back({key(samples[i]), i});
  std::sort(idx.begin(), idx.end());
  Pooled out;
  out.adj.resize(n);
  std::vector<double> values;
  for (std::size_t i = 0; i < idx.size();) {
    const auto k = idx[i].first;
    values.clear();
    for (; i < idx.size() && idx[i].first == k; ++i) {
      const auto& v = samples[idx[i].second].busbw_gbs;
      values.insert(values.end(), v.begin(), v.end());
    }
    const int p = static_cast<int>(out.pairs.size());
    out.pairs.push_back({k.first, k.second, median(values), values.size(), scaled_mad(values)});
    out.adj[k.first].push_back({k.second, p});
    out.adj[k.second].push_back({k.first, p});
  }
  return out;
}

double node_score(const Pooled& p, int v, const std::vector<char>& straggler, std::vector<double>& buf) {
  buf.clear();
  for (const auto& [u, i] : p.adj[v])
    if (!straggler[u]) buf.push_back(p.pairs[i].median);
  return buf.empty() ? kNaN : median(buf);
}

struct NodePass {
  std::vector<NodeVerdict> nodes;
  Bound bound;
  std::vector<char> disagree;  // inconclusive only because its pairs disagree
};

// Peels stragglers off worst first: each one found is left out of its partners' scores, so a
// healthy node that only met a straggler (few partners, as in a screen) is not dragged down with it.
NodePass judge_nodes(const Pooled& p, int n, const AttributionOptions& o) {
  NodePass out;
  out.nodes.resize(n);
  out.disagree.assign(n, 0);
  std::vector<char> straggler(n, 0), decided(n, 0);
  std::vector<double> score(n), buf;
  for (int v = 0; v < n; ++v) score[v] = node_score(p, v, straggler, buf);
  std::vector<double> measured;
  for (double s : score)
    if (!std::isnan(s)) measured.push_back(s);
  out.bound = make_bound(measured, o);
  const Bound& bound = out.bound;

  for (;;) {
    int v = -1;
    for (int u = 0; u < n; ++u)
      if (!decided[u] && !std::isnan(score[u]) && bound.slow(score[u]) && (v < 0 || score[u] < score[v])) v = u;
    if (v < 0) break;
    decided[v] = 1;
    NodeVerdict& nv = out.nodes[v];
    nv.score = score[v];
    std::size_t live = 0, normal = 0;
    int thin = -1, slow_with = -1, normal_with = -1;
    for (const auto& [u, i] : p.adj[v]) {
      if (straggler[u]) continue;
      const Pair& q = p.pairs[i];
      ++live;
      if (q.samples < static_cast<std::size_t>(o.min_samples_per_pair) && thin < 0) thin = i;
      if (bound.slow(q.median)) {
        if (slow_with < 0) slow_with = u;
      } else {
        ++normal;
        if (normal_with < 0) normal_with = u;
      }
    }
    if (thin >= 0) {
      const Pair& q = p.pairs[thin];
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = fmt::format("only {} samples with n{} (need {})", q.samples, q.a == v ? q.b : q.a,
                              o.min_samples_per_pair);
    } else if (static_cast<double>(normal) > kMaxNormalShare * static_cast<double>(live)) {
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = fmt::format("its pairs disagree: slow with n{} but normal with n{}", slow_with, normal_with);
      out.disagree[v] = 1;
    } else {
      nv.kind = NodeVerdict::Kind::Straggler;
      straggler[v] = 1;
      for (int u = 0; u < n; ++u)
        if (!straggler[u]) score[u] = node_score(p, u, straggler, buf);
    }
  }

  for (int v = 0; v < n; ++v) {
    NodeVerdict& nv = out.nodes[v];
    nv.node = v;
    std::vector<std::pair<int, double>> partners;
    for (const auto& [u, i] : p.adj[v]) partners.push_back({u, p.pairs[i].median});
    const std::size_t keep = std::min(partners.size(), kWorstPartners);
    std::partial_sort(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(keep), partners.end(),
                      [](const auto& x, const auto& y) { return x.second < y.second; });
    partners.resize(keep);
    nv.worst_partners = std::move(partners);
    if (nv.kind == NodeVerdict::Kind::Straggler) {
      nv.drop = bound.drop(nv.score);
      continue;
    }
    if (p.adj[v].empty()) {
      nv.score = kNaN;
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = "no pair measured";
    } else if (std::isnan(score[v])) {
      std::vector<char> none(n, 0);
      nv.score = node_score(p, v, none, buf);
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = "measured only with stragglers; confirm it against a healthy node";
    } else {
      nv.score = score[v];
      // Still slow once stragglers are left out: keep the doubt; else the straggler explained it.
      if (!bound.slow(nv.score)) {
        nv.kind = NodeVerdict::Kind::Healthy;
        nv.reason.clear();
      }
    }
    nv.drop = bound.drop(nv.score);
  }
  return out;
}

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

Attribution attribute(const std::vector<PairSample>& samples, int nodes, const AttributionOptions& opt) {
  if (nodes < 0) throw std::invalid_argument("attribute: negative node count");
  for (const auto& s : samples)
    if (s.a < 0 || s.b < 0 || s.a >= nodes || s.b >= nodes || s.a == s.b)
      throw std::invalid_argument(fmt::format("attribute: bad pair ({}, {}) for {} nodes", s.a, s.b, nodes));

  Attribution out;
  const Pooled all = pool(samples, nodes, {});
  out.matrix.assign(nodes, std::vector<double>(nodes, kNaN));
  for (const auto& q : all.pairs) out.matrix[q.a][q.b] = out.matrix[q.b][q.a] = q.median;

  // Rounds where most pairs are slow, pairs of implicated nodes left out: a fabric event rather
  // than a node's fault. Needs two slow pairs, since one slow pair is a node's or a link's.
  NodePass pass = judge_nodes(all, nodes, opt);
  {
    std::vector<std::size_t> kept;
    std::vector<double> meds;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const auto& s = samples[i];
      if (s.busbw_gbs.empty() || pass.nodes[s.a].kind != NodeVerdict::Kind::Healthy ||
          pass.nodes[s.b].kind != NodeVerdict::Kind::Healthy)
        continue;
      kept.push_back(i);
      meds.push_back(median(s.busbw_gbs));
    }
    const Bound rb = make_bound(meds, opt);
    std::map<int, std::pair<int, int>> per_round;  // round -> (pairs, slow pairs)
    for (std::size_t j = 0; j < kept.size(); ++j) {
      auto& [count, slow] = per_round[samples[kept[j]].round];
      ++count;
      if (rb.slow(meds[j])) ++slow;
    }
    for (const auto& [round, cs] : per_round)
      if (cs.second >= 2 && cs.second >= opt.fabric_wide_frac * cs.first) out.fabric_wide_rounds.push_back(round);
  }
  Pooled kept = all;
  if (!out.fabric_wide_rounds.empty()) {
    kept = pool(samples, nodes, std::set<int>(out.fabric_wide_rounds.begin(), out.fabric_wide_rounds.end()));
    pass = judge_nodes(kept, nodes, opt);
  }
  out.cluster_median = pass.bound.ref;
  out.mad = pass.bound.mad;
  out.nodes = std::move(pass.nodes);

  // Slow links: pairs judged against the other pairs whose nodes are not stragglers.
  auto fine = [&](int v) { return out.nodes[v].kind != NodeVerdict::Kind::Straggler; };
  std::vector<double> meds;
  for (const auto& q : kept.pairs)
    if (fine(q.a) && fine(q.b)) meds.push_back(q.median);
  const Bound pb = make_bound(meds, opt);
  out.pair_median = pb.ref;
  // A link is named only when its gap is also beyond the noise of its own iterations: mad_k
  // standard errors of its median (1.2533 sigma / sqrt(n), sigma from it or a typical pair).
  std::vector<double> noises;
  for (const auto& q : kept.pairs) noises.push_back(q.noise);
  const double typical_noise = noises.empty() ? 0 : median(noises);
  auto beyond_noise = [&](const Pair& q) {
    const double se = 1.2533 * std::max(q.noise, typical_noise) / std::sqrt(static_cast<double>(std::max<std::size_t>(q.samples, 1)));
    return pb.ref - q.median > opt.mad_k * se;
  };
  // A node in doubt only because its pairs disagree is cleared when its slow pairs are links:
  // without them (pairs far below the others, on enough samples) at least two other partners
  // score like the rest. With few partners one slow link can pull a node's median down with it.
  {
    std::vector<char> link(kept.pairs.size(), 0);
    for (std::size_t i = 0; i < kept.pairs.size(); ++i) {
      const auto& q = kept.pairs[i];
      link[i] = fine(q.a) && fine(q.b) && pb.slow(q.median) && beyond_noise(q) &&
                q.samples >= static_cast<std::size_t>(opt.min_samples_per_pair);
    }
    std::vector<double> rest;
    for (int v = 0; v < nodes; ++v) {
      NodeVerdict& nv = out.nodes[v];
      if (nv.kind != NodeVerdict::Kind::Inconclusive || !pass.disagree[v]) continue;
      rest.clear();
      bool has_link = false;
      for (const auto& [u, i] : kept.adj[v]) {
        if (!fine(u)) continue;
        if (link[i]) has_link = true;
        else rest.push_back(kept.pairs[i].median);
      }
      if (!has_link || rest.size() < 2 || pass.bound.slow(median(rest))) continue;
      nv.kind = NodeVerdict::Kind::Healthy;
      nv.score = median(rest);
      nv.drop = pass.bound.drop(nv.score);
      nv.reason.clear();
    }
  }
  // A pair touching a node already in doubt is explained by that doubt, not named as a link.
  std::vector<char> healthy_before(nodes);  // before this loop marks any, so pair order does not matter
  for (int v = 0; v < nodes; ++v) healthy_before[v] = out.nodes[v].kind == NodeVerdict::Kind::Healthy;
  auto healthy = [&](int v) { return healthy_before[v] != 0; };
  for (const auto& q : kept.pairs) {
    if (!healthy(q.a) || !healthy(q.b)) continue;
    if (!pb.slow(q.median) || !beyond_noise(q)) {
      if (pb.ref > 0 && (pb.slow(q.median) || pb.drop(q.median) >= 3 * opt.min_drop))
        out.suspect_links.push_back({q.a, q.b, q.median, pb.drop(q.median)});
      continue;
    }
    if (q.samples >= static_cast<std::size_t>(opt.min_samples_per_pair)) {
      out.slow_links.push_back({q.a, q.b, q.median, pb.drop(q.median)});
      continue;
    }
    for (auto [v, u] : {std::pair{q.a, q.b}, std::pair{q.b, q.a}}) {
      NodeVerdict& nv = out.nodes[v];
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = fmt::format("slow with n{} ({:.3g} GB/s) on only {} samples (need {})", u, q.median, q.samples,
                              opt.min_samples_per_pair);
    }
  }
  std::sort(out.slow_links.begin(), out.slow_links.end(),
            [](const LinkVerdict& x, const LinkVerdict& y) { return x.median < y.median; });
  return out;
}

std::vector<Finding> attribution_findings(const Attribution& a, const std::vector<std::string>& names,
                                          const std::string& what) {
  std::vector<Finding> out;
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
                   ref::kStraggler});
  }
  for (const auto& l : a.slow_links)
    out.push_back({"SLOW_LINK", Tag::Fail, Priority::P1,
                   fmt::format("{} <-> {}: {} {:.3g} GB/s, {:.0f}% below the pair median {:.3g} GB/s, while "
                               "neither node is a straggler; check the path between these two hosts",
                               host(names, l.a), host(names, l.b), what, l.median, 100 * l.drop, a.pair_median),
                   ref::kPairwise});
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
    out.push_back({"HUNT_INCONCLUSIVE", Tag::Warn, Priority::P2,
                   fmt::format("{} of {} nodes not judged on {} ({}); inconclusive, rerun with more iterations",
                               doubtful.size(), a.nodes.size(), what, list),
                   ref::kStraggler});
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
                   ref::kPairwise});
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
  const int n = static_cast<int>(a.matrix.size());
  std::vector<std::string> labels(n);
  std::size_t width = 4, label_width = 2;
  // One decimal for fabric-class numbers; more for slow (host-memory, shaped) links, or they all read 0.0.
  double largest = 0;
  for (const auto& row : a.matrix)
    for (double x : row)
      if (!std::isnan(x)) largest = std::max(largest, x);
  const int decimals = largest >= 10 ? 1 : largest >= 1 ? 2 : 3;
  for (int v = 0; v < n; ++v) {
    const bool marked = static_cast<std::size_t>(v) < a.nodes.size() && a.nodes[v].kind == NodeVerdict::Kind::Straggler;
    labels[v] = fmt::format("n{}{}", v, marked ? "*" : "");
    label_width = std::max(label_width, labels[v].size());
    for (double x : a.matrix[v])
      if (!std::isnan(x)) width = std::max(width, fmt::format("{:.{}f}", x, decimals).size());
  }
  width = std::max(width, label_width) + 1;

  // Legend, wrapped so 16 nodes with long host names stay readable.
  std::string out;
  std::string line = "nodes:";
  for (int v = 0; v < n; ++v) {
    const std::string item = fmt::format(" n{}={}", v, host(names, v));
    if (line.size() + item.size() > 100 && line.size() > 6) {
      out += line + "\n";
      line = "      ";
    }
    line += item;
  }
  out += line + "\n";
  out += fmt::format("median busbw GB/s per node pair{}\n",
                     std::any_of(a.nodes.begin(), a.nodes.end(),
                                 [](const NodeVerdict& nv) { return nv.kind == NodeVerdict::Kind::Straggler; })
                         ? "; * = straggler"
                         : "");
  out += fmt::format("{:<{}}", "", label_width);
  for (int v = 0; v < n; ++v) out += fmt::format("{:>{}}", labels[v], width);
  out += "\n";
  for (int v = 0; v < n; ++v) {
    out += fmt::format("{:<{}}", labels[v], label_width);
    for (int u = 0; u < n; ++u) {
      const double x = a.matrix[v][u];
      out += u == v || std::isnan(x) ? fmt::format("{:>{}}", "-", width) : fmt::format("{:>{}.{}f}", x, width, decimals);
    }
    out += "\n";
  }
  return out;
}

}  // namespace collbench::report
