// The straightforward attribution the fast one in reports/pairs/attribution.cpp must agree with:
// each node's leave-one-out yardstick built from every pair that does not touch it (n^3 on a full
// matrix), pairs looked up by scanning adjacency lists. For tests only.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "reports/core/stats.h"
#include "reports/pairs/attribution.h"

namespace collbench::report::reference_impl {


namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A straggler is slow with (almost) every partner. More normal pairs than this share means its
// pairs disagree (a slow link, or noise), and the node is not accused.
constexpr double kMaxNormalShare = 0.25;
constexpr std::size_t kWorstPartners = 3;
// Below this many reference pairs their medians' spread says little, so the spread of their
// iterations stands in when it is wider.
constexpr std::size_t kFewPairs = 5;
constexpr std::size_t kTooFewPairs = 3;

struct Pair {
  int a = 0, b = 0;
  double median = 0;
  std::size_t samples = 0;
  double noise = 0;  // scaled MAD of its samples
};

// Samples pooled per unordered pair; adj[v] = (partner, index into pairs).
struct Pooled {
  std::vector<Pair> pairs;
  std::vector<std::vector<std::pair<int, int>>> adj;
  const Pair* find(int a, int b) const {
    for (const auto& [u, i] : adj[a])
      if (u == b) return &pairs[i];
    return nullptr;
  }
};

std::pair<int, int> key(const PairSample& s) { return s.a < s.b ? std::pair{s.a, s.b} : std::pair{s.b, s.a}; }

template <class Keep>
Pooled pool(const std::vector<PairSample>& samples, int n, Keep keep) {
  // (pair key, sample index), sorted: keys inline keep the sort cache-friendly at 10^6 samples.
  std::vector<std::pair<std::pair<int, int>, std::size_t>> idx;
  idx.reserve(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (!samples[i].rates.empty() && keep(samples[i])) idx.push_back({key(samples[i]), i});
  std::sort(idx.begin(), idx.end());
  Pooled out;
  out.adj.resize(n);
  std::vector<double> values;
  for (std::size_t i = 0; i < idx.size();) {
    const auto k = idx[i].first;
    values.clear();
    for (; i < idx.size() && idx[i].first == k; ++i) {
      const auto& v = samples[idx[i].second].rates;
      values.insert(values.end(), v.begin(), v.end());
    }
    const int p = static_cast<int>(out.pairs.size());
    out.pairs.push_back({k.first, k.second, median(values), values.size(), scaled_mad(values)});
    out.adj[k.first].push_back({k.second, p});
    out.adj[k.second].push_back({k.first, p});
  }
  return out;
}

// The typical spread of one iteration relative to its pair's level: the scaled median of every
// sample's distance from its pair's median, over all pairs together. One pair's few samples can
// bunch by chance; pooled, they rarely do. Zero distances (a median sample itself) are left out,
// or with five samples a pair the estimate would lean low by a fifth.
double relative_noise(const std::vector<PairSample>& samples, const Pooled& p) {
  std::vector<double> rel;
  for (const auto& s : samples) {
    if (s.confirmation) continue;
    const Pair* q = p.find(s.a, s.b);
    if (!q || q->median <= 0) continue;
    for (double x : s.rates)
      if (x != q->median) rel.push_back(std::abs(x - q->median) / q->median);
  }
  return rel.empty() ? 0 : 1.4826 * median(rel);
}

// The yardstick from a set of pairs: their median, and a spread that is at least the standard
// error of one pair's median (from the iterations' typical spread), and with few pairs at least
// that spread itself, since three pairs can agree by chance and hide how far healthy pairs differ.
Bound reference(const Pooled& p, const std::vector<int>& pair_idx, double rel_noise, const OutlierRule& rule) {
  std::vector<double> meds, counts;
  for (int i : pair_idx) {
    meds.push_back(p.pairs[i].median);
    counts.push_back(static_cast<double>(p.pairs[i].samples));
  }
  Bound b = make_bound(meds, rule);
  if (b.ref > 0) {
    const double iteration = rel_noise * b.ref;
    const double se = 1.2533 * iteration / std::sqrt(std::max(1.0, median(counts)));
    b.mad = std::max(b.mad, meds.size() < kFewPairs ? iteration : se);
    b.floored = std::min(std::max(b.mad, rule.min_mad_frac * b.ref), rule.max_excused * b.ref / rule.mad_k);
    // One or two pairs say nothing of how far healthy pairs differ (on a shared host, 2x): only a
    // pair at a quarter of them or below is slow against so little.
    if (meds.size() < kTooFewPairs) b.floored = rule.max_excused * b.ref / rule.mad_k;
  }
  return b;
}

struct NodePass {
  std::vector<NodeVerdict> nodes;
  std::vector<Bound> bound;    // each node's leave-one-out yardstick
  std::vector<char> thin;      // that yardstick is one or two pairs
  std::vector<char> far;       // in doubt only for being far below a wide yardstick
  std::vector<char> disagree;  // in doubt only because its pairs disagree
};

// Judges every node against the pairs that do not touch it or a straggler found before it.
NodePass judge_nodes(const Pooled& p, int n, double rel_noise, const AttributionOptions& o) {
  NodePass out;
  out.nodes.resize(n);
  out.bound.resize(n);
  out.disagree.assign(n, 0);
  out.thin.assign(n, 0);
  out.far.assign(n, 0);
  std::vector<char> straggler(n, 0);
  struct Look {
    Bound bound;
    double score = kNaN;  // median of its pairs over the reference
    std::size_t live = 0, slow = 0, far = 0, ref_pairs = 0;
    int thin = -1, slow_with = -1, normal_with = -1;
  };
  auto look = [&](int v) {
    Look l;
    std::vector<int> ref_pairs;
    for (std::size_t i = 0; i < p.pairs.size(); ++i) {
      const Pair& q = p.pairs[i];
      if (q.a != v && q.b != v && !straggler[q.a] && !straggler[q.b]) ref_pairs.push_back(static_cast<int>(i));
    }
    l.bound = reference(p, ref_pairs, rel_noise, o);
    l.ref_pairs = ref_pairs.size();
    std::vector<double> mine;
    for (const auto& [u, i] : p.adj[v]) {
      if (straggler[u]) continue;
      const Pair& q = p.pairs[i];
      ++l.live;
      mine.push_back(q.median);
      if (q.samples < static_cast<std::size_t>(o.min_samples_per_pair) && l.thin < 0) l.thin = i;
      if (l.bound.ref > 0 && 1 - q.median / l.bound.ref >= 3 * o.min_drop) ++l.far;
      if (l.bound.slow(q.median)) {
        ++l.slow;
        if (l.slow_with < 0) l.slow_with = u;
      } else if (l.normal_with < 0) {
        l.normal_with = u;
      }
    }
    if (l.bound.ref > 0 && !mine.empty()) l.score = median(mine) / l.bound.ref;
    return l;
  };

  std::vector<char> decided(n, 0);
  for (;;) {
    int worst = -1;
    Look worst_look;
    for (int v = 0; v < n; ++v) {
      if (decided[v]) continue;
      Look l = look(v);
      const bool all_but_few = l.slow > 0 && static_cast<double>(l.live - l.slow) <= kMaxNormalShare * static_cast<double>(l.live);
      if (all_but_few && l.thin < 0 && (worst < 0 || l.score < worst_look.score)) worst = v, worst_look = l;
    }
    if (worst < 0) break;
    decided[worst] = 1;
    straggler[worst] = 1;
    out.nodes[worst].kind = NodeVerdict::Kind::Straggler;
    out.bound[worst] = worst_look.bound;
    out.thin[worst] = worst_look.ref_pairs < kTooFewPairs;
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
    if (nv.kind == NodeVerdict::Kind::Straggler) continue;
    const Look l = look(v);
    out.bound[v] = l.bound;
    out.thin[v] = l.ref_pairs < kTooFewPairs;
    if (p.adj[v].empty()) {
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = "no pair measured";
    } else if (l.live == 0) {
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = "measured only with stragglers; confirm it against a healthy node";
    } else if (l.bound.ref <= 0) {
      // Its pairs are all the yardstick left (three nodes, one a straggler): healthy, relatively;
      // with two nodes there is nothing at all to hold the one pair against.
      if (p.pairs.size() == 1) {
        nv.kind = NodeVerdict::Kind::Inconclusive;
        nv.reason = "one pair only: nothing to hold it against";
      }
    } else if (!l.bound.slow(l.score * l.bound.ref)) {
      // Its typical pair is normal: a slow pair of it is a question for the link rule. Unless every
      // pair of it is far below the others, with a thin or noisy yardstick: in doubt.
      if (l.far == l.live) {
        nv.kind = NodeVerdict::Kind::Inconclusive;
        out.far[v] = 1;
        nv.reason = l.ref_pairs < kTooFewPairs
                        ? fmt::format("{:.0f}% below the pairs without it, but {} such pair(s) cannot say how far "
                                      "healthy pairs differ",
                                      100 * (1 - l.score), l.ref_pairs)
                        : fmt::format("{:.0f}% below the pairs without it with every partner, but within the spread "
                                      "that their iterations allow",
                                      100 * (1 - l.score));
      }
    } else if (l.thin >= 0) {
      const Pair& q = p.pairs[l.thin];
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = fmt::format("only {} samples with n{} (need {})", q.samples, q.a == v ? q.b : q.a,
                              o.min_samples_per_pair);
    } else {
      nv.kind = NodeVerdict::Kind::Inconclusive;
      nv.reason = fmt::format("its pairs disagree: slow with n{} but normal with n{}", l.slow_with, l.normal_with);
      out.disagree[v] = 1;
    }
  }
  // Scores for the report: a node's pairs with non-stragglers, against the median node.
  std::vector<double> buf, scores;
  for (int v = 0; v < n; ++v) {
    buf.clear();
    for (const auto& [u, i] : p.adj[v])
      if (!straggler[u] || straggler[v]) buf.push_back(p.pairs[i].median);
    out.nodes[v].score = buf.empty() ? kNaN : median(buf);
    out.nodes[v].reference = out.bound[v].ref;
    if (!straggler[v] && !std::isnan(out.nodes[v].score)) scores.push_back(out.nodes[v].score);
  }
  const double cluster = scores.empty() ? 0 : median(scores);
  for (int v = 0; v < n; ++v) {
    NodeVerdict& nv = out.nodes[v];
    nv.drop = straggler[v] ? out.bound[v].drop(nv.score) : (cluster > 0 ? 1 - nv.score / cluster : kNaN);
  }
  return out;
}

// Rounds where most pairs are slow, pairs of implicated nodes left out: a fabric event rather
// than a node's fault. Needs two slow pairs, since one slow pair is a node's or a link's.
std::vector<int> fabric_wide(const std::vector<PairSample>& samples, const NodePass& pass,
                             const AttributionOptions& opt) {
  std::vector<std::size_t> kept;
  std::vector<double> meds;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& s = samples[i];
    if (s.rates.empty() || s.confirmation || pass.nodes[s.a].kind != NodeVerdict::Kind::Healthy ||
        pass.nodes[s.b].kind != NodeVerdict::Kind::Healthy)
      continue;
    kept.push_back(i);
    meds.push_back(median(s.rates));
  }
  const Bound rb = make_bound(meds, opt);
  std::map<int, std::pair<int, int>> per_round;  // round -> (pairs, slow pairs)
  for (std::size_t j = 0; j < kept.size(); ++j) {
    auto& [count, slow] = per_round[samples[kept[j]].round];
    ++count;
    if (rb.slow(meds[j])) ++slow;
  }
  std::vector<int> out;
  for (const auto& [round, cs] : per_round)
    if (cs.second >= 2 && cs.second >= opt.fabric_wide_frac * cs.first) out.push_back(round);
  return out;
}

// The confirmation: a straggler must be slow again against every healthy partner it was
// re-measured with, a suspect is cleared when none of those is slow, a slow link must be slow
// again on its own; what was not re-measured stays in doubt.
void confirm(Attribution& out, const Pooled& conf, const NodePass& pass, const Bound& link_bound, double rel_noise,
             const OutlierRule& rule) {
  const std::vector<Bound>& node_bound = pass.bound;
  // Slow by the bound, and beyond the standard error of the confirmation's own median (it may
  // have fewer samples than the pairs the bound was drawn from), or far below however noisy.
  auto slower = [&](const Bound& b, const Pair& q) {
    const double se = 1.2533 * rel_noise * b.ref / std::sqrt(static_cast<double>(std::max<std::size_t>(q.samples, 1)));
    return b.slow(q.median) && b.ref - q.median > std::min(rule.mad_k * se, rule.max_excused * b.ref);
  };
  for (auto& nv : out.nodes) {
    if (nv.kind == NodeVerdict::Kind::Healthy) continue;
    std::size_t slow = 0, normal = 0;
    int normal_with = -1;
    for (const auto& [u, i] : conf.adj[nv.node]) {
      if (out.nodes[u].kind != NodeVerdict::Kind::Healthy) continue;
      const Bound& b = node_bound[nv.node];
      if (slower(b, conf.pairs[i])) {
        ++slow;
      } else if ((pass.thin[nv.node] || pass.far[nv.node]) && b.ref > 0 &&
                 1 - conf.pairs[i].median / b.ref >= 3 * rule.min_drop) {
        // Far below a thin or noisy yardstick again: neither slow by it nor normal.
      } else {
        ++normal;
        normal_with = u;
      }
    }
    if (nv.kind == NodeVerdict::Kind::Straggler) {
      if (slow > 0 && normal == 0) {
        nv.reason = fmt::format("slow again against {} healthy partner(s) in the confirmation", slow);
      } else {
        nv.kind = NodeVerdict::Kind::Inconclusive;
        nv.reason = slow + normal == 0
                        ? "slow with its partners, not confirmed: no confirmation round measured it"
                        : fmt::format("slow with its partners, but normal with n{} in the confirmation", normal_with);
      }
    } else if (normal > 0 && slow == 0) {
      nv.kind = NodeVerdict::Kind::Healthy;
      nv.reason.clear();
    }
  }
  std::vector<LinkVerdict> kept;
  for (const auto& l : out.slow_links) {
    const Pair* again = conf.find(l.a, l.b);
    if (again && slower(link_bound, *again)) {
      kept.push_back(l);
    } else if (!again) {
      out.suspect_links.push_back(l);
      out.suspect_links.back().reason = "slow, not confirmed: no confirmation round measured it";
    }
  }
  out.slow_links = std::move(kept);
  std::erase_if(out.suspect_links, [&](const LinkVerdict& l) {
    const Pair* again = conf.find(l.a, l.b);
    return again && !slower(link_bound, *again);
  });
}

}  // namespace

inline Attribution attribute(const std::vector<PairSample>& samples, int nodes, const AttributionOptions& opt = {}) {
  if (nodes < 0) throw std::invalid_argument("attribute: negative node count");
  for (const auto& s : samples)
    if (s.a < 0 || s.b < 0 || s.a >= nodes || s.b >= nodes || s.a == s.b)
      throw std::invalid_argument(fmt::format("attribute: bad pair ({}, {}) for {} nodes", s.a, s.b, nodes));

  Attribution out;
  const Pooled all = pool(samples, nodes, [](const PairSample&) { return true; });
  out.matrix.assign(nodes, std::vector<double>(nodes, kNaN));
  for (const auto& q : all.pairs) out.matrix[q.a][q.b] = out.matrix[q.b][q.a] = q.median;

  auto first = [](const PairSample& s) { return !s.confirmation; };
  Pooled kept = pool(samples, nodes, first);
  int touched = 0;
  for (const auto& adj : kept.adj) touched += adj.empty() ? 0 : 1;
  out.two_nodes = touched == 2 && kept.pairs.size() == 1;
  NodePass pass = judge_nodes(kept, nodes, relative_noise(samples, kept), opt);
  out.fabric_wide_rounds = fabric_wide(samples, pass, opt);
  if (!out.fabric_wide_rounds.empty()) {
    const std::set<int> skip(out.fabric_wide_rounds.begin(), out.fabric_wide_rounds.end());
    kept = pool(samples, nodes, [&](const PairSample& s) { return first(s) && !skip.count(s.round); });
    pass = judge_nodes(kept, nodes, relative_noise(samples, kept), opt);
  }
  out.nodes = std::move(pass.nodes);
  std::vector<double> scores;
  for (const auto& nv : out.nodes)
    if (nv.kind != NodeVerdict::Kind::Straggler && !std::isnan(nv.score)) scores.push_back(nv.score);
  const Bound cb = make_bound(scores, opt);
  out.cluster_median = cb.ref;
  out.mad = cb.mad;

  // Links: each pair of non-stragglers against all such pairs (itself included: with few pairs a
  // tight spread of the others would make a 10% dip a link).
  auto fine = [&](int v) { return out.nodes[v].kind != NodeVerdict::Kind::Straggler; };
  std::vector<int> fine_pairs;
  for (std::size_t i = 0; i < kept.pairs.size(); ++i)
    if (fine(kept.pairs[i].a) && fine(kept.pairs[i].b)) fine_pairs.push_back(static_cast<int>(i));
  const double rel_noise = relative_noise(samples, kept);
  const Bound pb = reference(kept, fine_pairs, rel_noise, opt);
  out.pair_median = pb.ref;
  const double typical_noise = rel_noise * pb.ref;
  // Named only when the gap is also beyond the noise of its own iterations: mad_k standard errors
  // of its median (1.2533 sigma / sqrt(n), sigma from it or a typical pair).
  auto beyond_noise = [&](const Pair& q) {
    const double se = 1.2533 * std::max(q.noise, typical_noise) /
                      std::sqrt(static_cast<double>(std::max<std::size_t>(q.samples, 1)));
    return pb.ref - q.median > std::min(opt.mad_k * se, opt.max_excused * pb.ref);
  };
  std::vector<char> is_link(kept.pairs.size(), 0);
  for (int i : fine_pairs) {
    const Pair& q = kept.pairs[i];
    if (pb.slow(q.median) && beyond_noise(q) && q.samples >= static_cast<std::size_t>(opt.min_samples_per_pair))
      is_link[i] = 1;
  }
  // A node in doubt only because its pairs disagree is cleared when its slow pairs are links and
  // its other partners are normal (a slow node makes every pair of it slow); then it is the links
  // that are named.
  for (int v = 0; v < nodes; ++v) {
    NodeVerdict& nv = out.nodes[v];
    if (nv.kind != NodeVerdict::Kind::Inconclusive || !pass.disagree[v]) continue;
    bool has_link = false;
    std::vector<double> rest;
    for (const auto& [u, i] : kept.adj[v]) {
      if (!fine(u)) continue;
      if (is_link[i]) has_link = true;
      else rest.push_back(kept.pairs[i].median);
    }
    if (has_link && !rest.empty() && !pass.bound[v].slow(median(rest))) {
      nv.kind = NodeVerdict::Kind::Healthy;
      nv.reason.clear();
    }
  }
  // A pair touching a node still in doubt is explained by that doubt, not named as a link.
  for (int i : fine_pairs) {
    const Pair& q = kept.pairs[i];
    if (out.nodes[q.a].kind != NodeVerdict::Kind::Healthy || out.nodes[q.b].kind != NodeVerdict::Kind::Healthy)
      continue;
    const double drop = pb.drop(q.median);
    if (is_link[i]) {
      out.slow_links.push_back({q.a, q.b, q.median, drop, {}});
    } else if (pb.slow(q.median) && q.samples < static_cast<std::size_t>(opt.min_samples_per_pair)) {
      for (auto [v, u] : {std::pair{q.a, q.b}, std::pair{q.b, q.a}}) {
        out.nodes[v].kind = NodeVerdict::Kind::Inconclusive;
        out.nodes[v].reason = fmt::format("slow with n{} ({:.3g}) on only {} samples (need {})", u, q.median,
                                          q.samples, opt.min_samples_per_pair);
      }
    } else if (pb.ref > 0 && (pb.slow(q.median) || drop >= 3 * opt.min_drop)) {
      out.suspect_links.push_back(
          {q.a, q.b, q.median, drop, "within the spread of the other pairs or the noise of its own iterations"});
    }
  }
  if (opt.require_confirmation) {
    const Pooled conf = pool(samples, nodes, [](const PairSample& s) { return s.confirmation; });
    confirm(out, conf, pass, pb, rel_noise, opt);
  }
  std::sort(out.slow_links.begin(), out.slow_links.end(),
            [](const LinkVerdict& x, const LinkVerdict& y) { return x.median < y.median; });
  return out;
}

}  // namespace collbench::report::reference_impl
