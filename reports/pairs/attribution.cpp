#include "reports/pairs/attribution.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "reports/core/radix_median.h"
#include "reports/core/stats.h"

namespace collbench::report {

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

// median() and scaled_mad() in buffers kept across calls: pooling a million samples must not
// allocate per pair. `v` is reordered.
double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2 == 1) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

double scaled_mad_in_place(std::vector<double>& v, std::vector<double>& dev) {
  if (v.empty()) return 0;
  const double m = median_in_place(v);
  dev.clear();
  for (double x : v) dev.push_back(std::abs(x - m));
  return 1.4826 * median_in_place(dev);
}

// A pair as its node sees it: the partner, and the pair's index and median inline so a node's
// pairs are read in one sweep. 16 bytes: every pass over the nodes reads a million of them; the
// sample count, rarely needed, is the pair's.
struct Edge {
  int partner = 0, pair = 0;
  double median = 0;
};

// A pair's few samples (the common case: one round's iterations) are sorted by insertion, which
// at a handful of values beats selecting in a copy.
constexpr std::size_t kFewValues = 16;

// median() of s[0..n), n <= kFewValues, sorting them in place.
double median_sorting(double* s, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && s[j] < s[j - 1]; --j) std::swap(s[j], s[j - 1]);
  if (n == 0) return 0;
  return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

// A set of iterations' median and scaled MAD, exactly as median() and scaled_mad() give them.
struct Level {
  double median = 0, noise = 0;
};
Level level_of(const double* v, std::size_t n, std::vector<double>& work, std::vector<double>& dev) {
  Level l;
  if (n == 3) {
    // The common case, without branches: the median of three, and the nearer outer value's
    // distance from it (the median's own distance is 0), as the general path computes them.
    const double lo = std::min(v[0], v[1]), hi = std::max(v[0], v[1]);
    l.median = std::max(lo, std::min(hi, v[2]));
    const double top = std::max(hi, v[2]), bottom = std::min(lo, v[2]);
    l.noise = 1.4826 * std::min(l.median - bottom, top - l.median);
  } else if (n <= kFewValues) {
    double s[kFewValues];
    std::copy(v, v + n, s);
    l.median = median_sorting(s, n);
    for (std::size_t i = 0; i < n; ++i) s[i] = std::abs(s[i] - l.median);
    l.noise = 1.4826 * median_sorting(s, n);
  } else {
    work.assign(v, v + n);
    l.median = median_in_place(work);
    l.noise = scaled_mad_in_place(work, dev);
  }
  return l;
}

// Samples pooled per unordered pair; pairs sorted by (a, b), adj[v] by partner.
struct Pooled {
  std::vector<Pair> pairs;
  std::vector<std::vector<Edge>> adj;
  const Pair* find(int a, int b) const {
    if (a > b) std::swap(a, b);
    const auto it = std::lower_bound(pairs.begin(), pairs.end(), std::pair{a, b},
                                     [](const Pair& q, const std::pair<int, int>& k) { return std::pair{q.a, q.b} < k; });
    return it != pairs.end() && it->a == a && it->b == b ? &*it : nullptr;
  }
};

// Every sample with rates, grouped by pair (a < b), in sample order within a pair, its rates
// copied into one buffer in that order. Built in two counting passes over node indices and one
// sweep of the samples: at 10^6 samples, reading them in pair order (a sort, a pool, the noise)
// was mostly cache misses.
struct Grouped {
  struct Entry {
    int a = 0, b = 0, round = 0;
    bool confirmation = false;
    std::size_t begin = 0, end = 0;  // into values
    Level level;                     // of its values: most pairs are one entry, their level is the pair's
  };
  std::vector<Entry> entries;
  std::vector<std::size_t> group;  // the first entry of each pair, and entries.size()
  std::vector<double> values;
};

Grouped group_samples(const std::vector<PairSample>& samples, int n) {
  Grouped g;
  // What an entry needs of its sample, so the samples are read in their own order only: reading
  // them in pair order was mostly cache misses.
  struct Key {
    int a = 0, b = 0, round = 0;
    std::uint32_t sample = 0, size = 0;
    bool confirmation = false;
  };
  std::vector<Key> in, out;
  in.reserve(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const PairSample& s = samples[i];
    if (!s.rates.empty())
      in.push_back({std::min(s.a, s.b), std::max(s.a, s.b), s.round, static_cast<std::uint32_t>(i),
                    static_cast<std::uint32_t>(s.rates.size()), s.confirmation});
  }
  out.resize(in.size());
  std::vector<std::size_t> start(static_cast<std::size_t>(n) + 1);
  auto pass = [&](const std::vector<Key>& from, std::vector<Key>& to, auto node) {
    std::fill(start.begin(), start.end(), 0);
    for (const Key& k : from) ++start[static_cast<std::size_t>(node(k)) + 1];
    for (std::size_t v = 1; v < start.size(); ++v) start[v] += start[v - 1];
    for (const Key& k : from) to[start[static_cast<std::size_t>(node(k))]++] = k;
  };
  pass(in, out, [](const Key& k) { return k.b; });
  pass(out, in, [](const Key& k) { return k.a; });
  out = {};
  std::vector<std::size_t> offset(samples.size());
  std::size_t at = 0;
  g.entries.resize(in.size());
  for (std::size_t j = 0; j < in.size(); ++j) {
    const Key& k = in[j];
    if (j == 0 || k.a != in[j - 1].a || k.b != in[j - 1].b) g.group.push_back(j);
    offset[k.sample] = at;
    Grouped::Entry& e = g.entries[j];
    e.a = k.a, e.b = k.b, e.round = k.round, e.confirmation = k.confirmation, e.begin = at, e.end = at + k.size;
    at += k.size;
  }
  g.group.push_back(in.size());
  g.values.resize(at);
  for (std::size_t i = 0; i < samples.size(); ++i)
    std::copy(samples[i].rates.begin(), samples[i].rates.end(), g.values.begin() + static_cast<std::ptrdiff_t>(offset[i]));
  // Each entry's level once, in value order; pooling and the fabric-wide rule both read it.
  std::vector<double> work, dev;
  for (Grouped::Entry& e : g.entries) e.level = level_of(g.values.data() + e.begin, e.end - e.begin, work, dev);
  return g;
}

// `keep` chooses entries; a pair with none kept is left out.
template <class Keep>
Pooled pool(const Grouped& g, int n, Keep keep) {
  Pooled out;
  out.adj.resize(n);
  std::vector<int> degree(static_cast<std::size_t>(n), 0);
  for (std::size_t k = 0; k + 1 < g.group.size(); ++k) {
    ++degree[static_cast<std::size_t>(g.entries[g.group[k]].a)];
    ++degree[static_cast<std::size_t>(g.entries[g.group[k]].b)];
  }
  out.pairs.reserve(g.group.size());
  for (int v = 0; v < n; ++v) out.adj[v].reserve(static_cast<std::size_t>(degree[static_cast<std::size_t>(v)]));
  std::vector<double> values, work, dev;
  for (std::size_t k = 0; k + 1 < g.group.size(); ++k) {
    // One kept entry (the common case) has its level already; more are gathered.
    const double* data = nullptr;
    std::size_t size = 0, kept = 0;
    Level level;
    for (std::size_t j = g.group[k]; j < g.group[k + 1]; ++j) {
      const Grouped::Entry& e = g.entries[j];
      if (!keep(e)) continue;
      if (kept++ == 0) {
        data = g.values.data() + e.begin;
        size = e.end - e.begin;
        level = e.level;
      } else {
        if (kept == 2) values.assign(data, data + size);
        values.insert(values.end(), g.values.begin() + static_cast<std::ptrdiff_t>(e.begin),
                      g.values.begin() + static_cast<std::ptrdiff_t>(e.end));
      }
    }
    if (kept == 0) continue;
    if (kept > 1) size = values.size(), level = level_of(values.data(), size, work, dev);
    const Grouped::Entry& e = g.entries[g.group[k]];
    const int p = static_cast<int>(out.pairs.size());
    const double med = level.median;
    out.pairs.push_back({e.a, e.b, med, size, level.noise});
    out.adj[e.a].push_back({e.b, p, med});
    out.adj[e.b].push_back({e.a, p, med});
  }
  return out;
}

// The typical spread of one iteration relative to its pair's level: the scaled median of every
// sample's distance from its pair's median, over all pairs together. One pair's few samples can
// bunch by chance; pooled, they rarely do. Zero distances (a median sample itself) are left out,
// or with five samples a pair the estimate would lean low by a fifth.
// Groups and `p.pairs` are both by pair, so each sample's pair is found walking along.
double relative_noise(const Grouped& g, const Pooled& p) {
  std::vector<double> rel;
  rel.reserve(g.values.size());
  std::size_t at = 0;
  for (const Grouped::Entry& e : g.entries) {
    if (e.confirmation) continue;
    while (at < p.pairs.size() && std::pair{p.pairs[at].a, p.pairs[at].b} < std::pair{e.a, e.b}) ++at;
    if (at == p.pairs.size()) break;
    const Pair& q = p.pairs[at];
    if (q.a != e.a || q.b != e.b || q.median <= 0) continue;
    for (std::size_t j = e.begin; j < e.end; ++j)
      if (g.values[j] != q.median) rel.push_back(std::abs(g.values[j] - q.median) / q.median);
  }
  return rel.empty() ? 0 : 1.4826 * radix_median(rel);
}

// The yardstick from a set of pairs: their median, and a spread that is at least the standard
// error of one pair's median (from the iterations' typical spread), and with few pairs at least
// that spread itself, since three pairs can agree by chance and hide how far healthy pairs differ.
// `b` is make_bound of the pairs' medians, `count_median` the median of their sample counts.
Bound widen(Bound b, std::size_t pairs, double count_median, double rel_noise, const OutlierRule& rule) {
  if (b.ref > 0) {
    const double iteration = rel_noise * b.ref;
    const double se = 1.2533 * iteration / std::sqrt(std::max(1.0, count_median));
    b.mad = std::max(b.mad, pairs < kFewPairs ? iteration : se);
    b.floored = std::min(std::max(b.mad, rule.min_mad_frac * b.ref), rule.max_excused * b.ref / rule.mad_k);
    // One or two pairs say nothing of how far healthy pairs differ (on a shared host, 2x): only a
    // pair at a quarter of them or below is slow against so little.
    if (pairs < kTooFewPairs) b.floored = rule.max_excused * b.ref / rule.mad_k;
  }
  return b;
}

// The first index in [first, last) where `pred` (true on a prefix) is false, searched outwards
// from `hint`: the leave-one-out answers of neighbouring nodes lie close together, so a search
// from the last one stays within a few cache lines of a million sorted values.
template <class Pred>
std::size_t gallop(std::size_t first, std::size_t last, std::size_t hint, const Pred& pred) {
  hint = std::clamp(hint, first, last);
  std::size_t lo = first, hi = last;  // the answer is in [lo, hi]
  if (hint < last && pred(hint)) {
    lo = hint + 1;
    for (std::size_t step = 1; lo + step - 1 < last; step *= 2) {
      if (!pred(lo + step - 1)) {
        hi = lo + step - 1;
        break;
      }
      lo += step;
    }
  } else {
    hi = hint;
    for (std::size_t step = 1; hi > first; step *= 2) {
      const std::size_t at = hi >= first + step ? hi - step : first;
      if (pred(at)) {
        lo = at + 1;
        break;
      }
      hi = at;
    }
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (pred(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Where the last search over the same sorted values ended, for the next one to start from.
struct Hints {
  std::size_t kth[2] = {0, 0}, left = 0, right = 0, dev_lo = 0, dev_hi = 0;
};

// Order statistics of a sorted multiset `all` less a sorted sub-multiset `gone` (a node's own
// pairs), without copying the rest: every node's leave-one-out yardstick is then a few searches
// over the pairs sorted once, not a pass over all of them (n^3 on a full matrix).
class Without {
 public:
  Without(std::span<const double> all, std::span<const double> gone, Hints* hints = nullptr)
      : all_(all), gone_(gone), hints_(hints ? hints : &own_) {}
  std::size_t size() const { return all_.size() - gone_.size(); }

  // Exactly make_bound() of the rest.
  Bound bound(const OutlierRule& rule) const {
    Bound b;
    b.min_drop = rule.min_drop;
    b.k = rule.mad_k;
    if (size() == 0) return b;
    b.ref = median();
    b.mad = scaled_mad(b.ref);
    b.floored = std::min(std::max(b.mad, rule.min_mad_frac * b.ref), rule.max_excused * b.ref / rule.mad_k);
    return b;
  }

  // Exactly median() of the rest.
  double median() const {
    const std::size_t n = size();
    if (n == 0) return 0;
    if (n % 2 == 1) return kth(n / 2, hints_->kth[1]);
    return (kth(n / 2 - 1, hints_->kth[0]) + kth(n / 2, hints_->kth[1])) / 2;
  }

  // Exactly scaled_mad() of the rest, whose median is `m`.
  double scaled_mad(double m) const {
    const std::size_t n = size();
    if (n == 0) return 0;
    const Devs a(all_, m), g(gone_, m);
    auto count = [&](double d) { return a.count_le(d, hints_) - g.count_le(d, nullptr); };
    auto dev_kth = [&](std::size_t k) {
      // The k-th distance is the smallest one, on either side of m, with more than k of the rest's
      // distances at or below it.
      double best = std::numeric_limits<double>::infinity();
      const std::size_t q = gallop(0, a.split, hints_->left, [&](std::size_t q) { return count(a.dev(a.split - 1 - q)) <= k; });
      if (q < a.split) best = a.dev(a.split - 1 - q), hints_->left = q;
      const std::size_t r = gallop(a.split, all_.size(), hints_->right, [&](std::size_t i) { return count(a.dev(i)) <= k; });
      if (r < all_.size()) best = std::min(best, a.dev(r)), hints_->right = r;
      return best;
    };
    const double d = n % 2 == 1 ? dev_kth(n / 2) : (dev_kth(n / 2 - 1) + dev_kth(n / 2)) / 2;
    return 1.4826 * d;
  }

 private:
  // The k-th smallest (from 0) of the rest: the first value with more than k of the rest at or
  // below it. It lies at index k to k + gone.size() of `all`.
  double kth(std::size_t k, std::size_t& hint) const {
    const std::size_t last = std::min(all_.size(), k + gone_.size() + 1);
    const std::size_t i = gallop(k, last, hint, [&](std::size_t i) { return count_le(i) <= k; });
    hint = i;
    return all_[std::min(i, all_.size() - 1)];
  }
  // The rest at or below all_[i].
  std::size_t count_le(std::size_t i) const {
    const double x = all_[i];
    const std::size_t above = gallop(i, all_.size(), i, [&](std::size_t j) { return all_[j] <= x; });
    return above - static_cast<std::size_t>(std::upper_bound(gone_.begin(), gone_.end(), x) - gone_.begin());
  }

  // Distances |x - m| of a sorted set, as scaled_mad computes them: they grow leftwards from m
  // below it and rightwards from m above it.
  struct Devs {
    std::span<const double> v;
    double m;
    std::size_t split;  // first value >= m
    Devs(std::span<const double> values, double median)
        : v(values), m(median), split(static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), m) - v.begin())) {}
    double dev(std::size_t i) const { return std::abs(v[i] - m); }
    // With hints for the large set; the small one is searched plainly.
    std::size_t count_le(double d, Hints* h) const {
      const auto left = [&](std::size_t i) { return dev(i) > d; };
      const auto right = [&](std::size_t i) { return dev(i) <= d; };
      if (!h) return gallop(split, v.size(), split, right) - gallop(0, split, split, left);
      h->dev_lo = gallop(0, split, h->dev_lo, left);
      h->dev_hi = gallop(split, v.size(), h->dev_hi, right);
      return h->dev_hi - h->dev_lo;
    }
  };

  std::span<const double> all_, gone_;
  mutable Hints own_;
  Hints* hints_;
};

struct SortedPair {
  double median = 0;
  int a = 0, b = 0;
};

// Pairs by median: an LSD radix sort on the medians' bits, 11 a pass, passes where every value
// agrees skipped. Each node's pairs then come out sorted too, where a comparison sort of all
// pairs and of each node's was a third of the attribution at 1,024 nodes.
std::vector<SortedPair> sort_by_median(const std::vector<Pair>& pairs) {
  constexpr int kBits = 11, kPasses = (64 + kBits - 1) / kBits;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  // Order-preserving: negative values flipped whole, others with the sign bit set.
  auto key = [](double x) {
    const auto u = std::bit_cast<std::uint64_t>(x);
    return (u & kSign) ? ~u : (u | kSign);
  };
  std::vector<SortedPair> v(pairs.size()), tmp(pairs.size());
  std::vector<std::size_t> count(kPasses * kBuckets, 0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    v[i] = {pairs[i].median, pairs[i].a, pairs[i].b};
    const std::uint64_t k = key(pairs[i].median);
    for (int d = 0; d < kPasses; ++d) ++count[static_cast<std::size_t>(d) * kBuckets + ((k >> (d * kBits)) & (kBuckets - 1))];
  }
  for (int d = 0; d < kPasses; ++d) {
    std::size_t* c = &count[static_cast<std::size_t>(d) * kBuckets];
    if (std::any_of(c, c + kBuckets, [&](std::size_t x) { return x == pairs.size(); })) continue;
    std::size_t sum = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) sum += std::exchange(c[b], sum);
    for (const SortedPair& q : v) tmp[c[(key(q.median) >> (d * kBits)) & (kBuckets - 1)]++] = q;
    v.swap(tmp);
  }
  return v;
}

struct NodePass {
  std::vector<NodeVerdict> nodes;
  std::vector<Bound> bound;    // each node's leave-one-out yardstick
  std::vector<char> thin;      // that yardstick is one or two pairs
  std::vector<char> far;       // in doubt only because every pair of it is far below a wide yardstick
  std::vector<char> disagree;  // in doubt only because its pairs disagree
  // Medians and sample counts of the pairs without a straggler, each sorted.
  std::vector<double> meds, counts;
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
  // The pairs without a straggler, their medians and sample counts each sorted; a node's own
  // pairs (their values sorted the same way, its pairs with stragglers taken out) are what its
  // yardstick leaves out of them.
  std::vector<double>& meds = out.meds;
  std::vector<double>& counts = out.counts;
  meds.reserve(p.pairs.size());
  counts.reserve(p.pairs.size());
  std::vector<std::vector<double>> node_meds(n), node_counts(n);
  for (int v = 0; v < n; ++v) node_meds[v].reserve(p.adj[v].size());
  for (const SortedPair& q : sort_by_median(p.pairs)) {
    meds.push_back(q.median);
    node_meds[q.a].push_back(q.median);
    node_meds[q.b].push_back(q.median);
  }
  for (const Pair& q : p.pairs) counts.push_back(static_cast<double>(q.samples));
  if (!std::is_sorted(counts.begin(), counts.end())) std::sort(counts.begin(), counts.end());
  // Pairs that all took the same number of samples (a fixed count) have that for every median.
  const bool one_count = counts.empty() || counts.front() == counts.back();
  for (int v = 0; v < n && !one_count; ++v) {
    for (const Edge& e : p.adj[v]) node_counts[v].push_back(static_cast<double>(p.pairs[e.pair].samples));
    if (!std::is_sorted(node_counts[v].begin(), node_counts[v].end()))
      std::sort(node_counts[v].begin(), node_counts[v].end());
  }
  // Takes each pair of a straggler out of sorted values (one occurrence each).
  auto take_out = [&](std::vector<double>& sorted, std::vector<double>& gone) {
    std::sort(gone.begin(), gone.end());
    std::vector<double> rest;
    rest.reserve(sorted.size());
    std::set_difference(sorted.begin(), sorted.end(), gone.begin(), gone.end(), std::back_inserter(rest));
    sorted = std::move(rest);
  };
  std::vector<double> gone_meds, gone_counts;
  auto add_straggler = [&](int s) {
    gone_meds.clear();
    gone_counts.clear();
    for (const Edge& e : p.adj[s])
      if (!straggler[e.partner]) {
        gone_meds.push_back(e.median);
        gone_counts.push_back(static_cast<double>(p.pairs[e.pair].samples));
      }
    straggler[s] = 1;
    take_out(meds, gone_meds);
    take_out(counts, gone_counts);
  };
  // Each node's pairs with fewer samples than a verdict needs (rarely any), by partner like adj.
  std::vector<std::vector<std::pair<int, int>>> few(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < p.pairs.size(); ++i)
    if (const Pair& q = p.pairs[i]; q.samples < static_cast<std::size_t>(o.min_samples_per_pair)) {
      few[q.a].push_back({q.b, static_cast<int>(i)});
      few[q.b].push_back({q.a, static_cast<int>(i)});
    }
  std::vector<double> my_meds, my_counts;
  Hints med_hints, count_hints;
  // A node's pairs with non-stragglers, sorted: its own list, less those with stragglers.
  auto live = [&](int v, const std::vector<std::vector<double>>& sorted, std::vector<double>& buf, bool counts_of)
      -> std::span<const double> {
    bool any = false;
    for (const Edge& e : p.adj[v]) any |= straggler[e.partner] != 0;
    if (!any) return sorted[v];
    buf = sorted[v];
    for (const Edge& e : p.adj[v])
      if (straggler[e.partner]) {
        const double x = counts_of ? static_cast<double>(p.pairs[e.pair].samples) : e.median;
        buf.erase(std::lower_bound(buf.begin(), buf.end(), x));
      }
    return buf;
  };

  auto look = [&](int v) {
    Look l;
    const std::span<const double> mine = live(v, node_meds, my_meds, false);
    const Without rest(meds, mine, &med_hints);
    l.ref_pairs = rest.size();
    const double count_median = one_count ? (l.ref_pairs > 0 ? counts.front() : 0)
                                          : Without(counts, live(v, node_counts, my_counts, true), &count_hints).median();
    l.bound = widen(rest.bound(o), l.ref_pairs, count_median, rel_noise, o);
    for (const auto& [partner, pair] : few[v])
      if (!straggler[partner]) {
        l.thin = pair;
        break;
      }
    for (const Edge& e : p.adj[v]) {
      if (straggler[e.partner]) continue;
      ++l.live;
      if (l.bound.ref > 0 && 1 - e.median / l.bound.ref >= 3 * o.min_drop) ++l.far;
      if (l.bound.slow(e.median)) {
        ++l.slow;
        if (l.slow_with < 0) l.slow_with = e.partner;
      } else if (l.normal_with < 0) {
        l.normal_with = e.partner;
      }
    }
    if (l.bound.ref > 0 && !mine.empty()) l.score = Without(mine, {}).median() / l.bound.ref;
    return l;
  };

  std::vector<char> decided(n, 0);
  // The last pass's looks are every other node's final one: no straggler was added after it.
  std::vector<Look> looks(static_cast<std::size_t>(n));
  for (;;) {
    int worst = -1;
    Look worst_look;
    for (int v = 0; v < n; ++v) {
      if (decided[v]) continue;
      const Look& l = looks[v] = look(v);
      const bool all_but_few = l.slow > 0 && static_cast<double>(l.live - l.slow) <= kMaxNormalShare * static_cast<double>(l.live);
      if (all_but_few && l.thin < 0 && (worst < 0 || l.score < worst_look.score)) worst = v, worst_look = l;
    }
    if (worst < 0) break;
    decided[worst] = 1;
    add_straggler(worst);
    out.nodes[worst].kind = NodeVerdict::Kind::Straggler;
    out.bound[worst] = worst_look.bound;
    out.thin[worst] = worst_look.ref_pairs < kTooFewPairs;
  }

  std::vector<std::pair<int, double>> partners;
  for (int v = 0; v < n; ++v) {
    NodeVerdict& nv = out.nodes[v];
    nv.node = v;
    partners.clear();
    for (const Edge& e : p.adj[v]) partners.push_back({e.partner, e.median});
    const std::size_t keep = std::min(partners.size(), kWorstPartners);
    std::partial_sort(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(keep), partners.end(),
                      [](const auto& x, const auto& y) { return x.second < y.second; });
    nv.worst_partners.assign(partners.begin(), partners.begin() + static_cast<std::ptrdiff_t>(keep));
    if (nv.kind == NodeVerdict::Kind::Straggler) continue;
    const Look& l = looks[v];
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
      // pair of it is far below the others, and only a thin or noisy yardstick keeps that from slow:
      // then it is in doubt, never passed.
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
  // A straggler's pairs are all of its own (sorted) list; another's are live().
  std::vector<double> scores;
  for (int v = 0; v < n; ++v) {
    const std::span<const double> mine = straggler[v] ? std::span<const double>(node_meds[v]) : live(v, node_meds, my_meds, false);
    out.nodes[v].score = mine.empty() ? kNaN : Without(mine, {}).median();
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
std::vector<int> fabric_wide(const Grouped& g, const NodePass& pass, const AttributionOptions& opt) {
  std::vector<int> rounds;
  std::vector<double> meds;
  rounds.reserve(g.entries.size());
  meds.reserve(g.entries.size());
  for (const Grouped::Entry& e : g.entries) {
    if (e.confirmation || pass.nodes[e.a].kind != NodeVerdict::Kind::Healthy ||
        pass.nodes[e.b].kind != NodeVerdict::Kind::Healthy)
      continue;
    rounds.push_back(e.round);
    meds.push_back(e.level.median);
  }
  // make_bound(meds), without its copies and sorts of a million values.
  Bound rb;
  rb.min_drop = opt.min_drop;
  rb.k = opt.mad_k;
  if (!meds.empty()) {
    std::vector<double> dev;
    rb.ref = radix_median(meds);
    dev.reserve(meds.size());
    for (double x : meds) dev.push_back(std::abs(x - rb.ref));
    rb.mad = 1.4826 * radix_median(dev);
    rb.floored = std::min(std::max(rb.mad, opt.min_mad_frac * rb.ref), opt.max_excused * rb.ref / opt.mad_k);
  }
  std::vector<int> out;
  if (rounds.empty()) return out;
  // Rounds are numbered from 0 by the schedule: counted in a table, not a map of a million lookups.
  const auto [lo, hi] = std::minmax_element(rounds.begin(), rounds.end());
  const int first = *lo;
  const auto span = static_cast<std::size_t>(static_cast<std::int64_t>(*hi) - first) + 1;
  std::map<int, std::pair<int, int>> sparse;  // round -> (pairs, slow pairs), when numbers are far apart
  std::vector<std::pair<int, int>> dense(span <= 4 * rounds.size() ? span : 0);
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    auto& [count, slow] = dense.empty() ? sparse[rounds[j]] : dense[static_cast<std::size_t>(rounds[j] - first)];
    ++count;
    if (rb.slow(meds[j])) ++slow;
  }
  for (std::size_t r = 0; r < dense.size(); ++r) sparse.emplace(first + static_cast<int>(r), dense[r]);
  for (const auto& [round, cs] : sparse)
    if (cs.first > 0 && cs.second >= 2 && cs.second >= opt.fabric_wide_frac * cs.first) out.push_back(round);
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
    for (const Edge& e : conf.adj[nv.node]) {
      const int u = e.partner, i = e.pair;
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

Attribution attribute(const std::vector<PairSample>& samples, int nodes, const AttributionOptions& opt) {
  if (nodes < 0) throw std::invalid_argument("attribute: negative node count");
  for (const auto& s : samples)
    if (s.a < 0 || s.b < 0 || s.a >= nodes || s.b >= nodes || s.a == s.b)
      throw std::invalid_argument(fmt::format("attribute: bad pair ({}, {}) for {} nodes", s.a, s.b, nodes));

  Attribution out;
  const Grouped grouped = group_samples(samples, nodes);
  auto first = [](const Grouped::Entry& e) { return !e.confirmation; };
  Pooled kept = pool(grouped, nodes, first);
  // The matrix is of every sample: it differs from the first samples' only where a pair was
  // measured again in the confirmation.
  // Row by row from each node's pairs: pair by pair, every other write went to another row.
  out.matrix.assign(nodes, std::vector<double>(nodes, kNaN));
  for (int v = 0; v < nodes; ++v) {
    std::vector<double>& row = out.matrix[v];
    for (const Edge& e : kept.adj[v]) row[e.partner] = e.median;
  }
  std::set<std::pair<int, int>> again;
  for (const auto& e : grouped.entries)
    if (e.confirmation) again.insert({e.a, e.b});
  if (!again.empty()) {
    const Pooled all = pool(grouped, nodes, [&](const Grouped::Entry& e) { return again.count({e.a, e.b}) > 0; });
    for (const auto& q : all.pairs) out.matrix[q.a][q.b] = out.matrix[q.b][q.a] = q.median;
  }
  int touched = 0;
  for (const auto& adj : kept.adj) touched += adj.empty() ? 0 : 1;
  out.two_nodes = touched == 2 && kept.pairs.size() == 1;
  double rel_noise = relative_noise(grouped, kept);
  NodePass pass = judge_nodes(kept, nodes, rel_noise, opt);
  out.fabric_wide_rounds = fabric_wide(grouped, pass, opt);
  if (!out.fabric_wide_rounds.empty()) {
    const std::set<int> skip(out.fabric_wide_rounds.begin(), out.fabric_wide_rounds.end());
    kept = pool(grouped, nodes, [&](const Grouped::Entry& e) { return first(e) && !skip.count(e.round); });
    rel_noise = relative_noise(grouped, kept);
    pass = judge_nodes(kept, nodes, rel_noise, opt);
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
  // The yardstick of fine_pairs: the judge left the same pairs sorted.
  const Bound pb = widen(Without(pass.meds, {}).bound(opt), pass.meds.size(), Without(pass.counts, {}).median(),
                         rel_noise, opt);
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
    for (const Edge& e : kept.adj[v]) {
      if (!fine(e.partner)) continue;
      if (is_link[e.pair]) has_link = true;
      else rest.push_back(e.median);
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
    const Pooled conf = pool(grouped, nodes, [](const Grouped::Entry& e) { return e.confirmation; });
    confirm(out, conf, pass, pb, rel_noise, opt);
  }
  std::sort(out.slow_links.begin(), out.slow_links.end(),
            [](const LinkVerdict& x, const LinkVerdict& y) { return x.median < y.median; });
  return out;
}

}  // namespace collbench::report
