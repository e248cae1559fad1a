// The fast attribution (reports/pairs/attribution.cpp) against the straightforward one
// (attribution_reference.h): the same verdicts, scores and yardsticks, to the bit, on random
// clusters with slow nodes and links, healthy and busy, with and without confirmation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "attribution_reference.h"
#include "bench/schedules.h"
#include "launcher/phases/confirmation.h"
#include "reports/pairs/attribution.h"
#include "reports/pairs/busy_hosts.h"

namespace collbench::report {
namespace {

bool same(double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; }

void expect_same_links(const std::vector<LinkVerdict>& x, const std::vector<LinkVerdict>& y, const char* what) {
  ASSERT_EQ(x.size(), y.size()) << what;
  for (std::size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(x[i].a, y[i].a) << what << " " << i;
    EXPECT_EQ(x[i].b, y[i].b) << what << " " << i;
    EXPECT_TRUE(same(x[i].median, y[i].median)) << what << " " << i;
    EXPECT_TRUE(same(x[i].drop, y[i].drop)) << what << " " << i;
    EXPECT_EQ(x[i].reason, y[i].reason) << what << " " << i;
  }
}

void expect_same(const Attribution& fast, const Attribution& ref) {
  EXPECT_EQ(fast.two_nodes, ref.two_nodes);
  EXPECT_TRUE(same(fast.cluster_median, ref.cluster_median)) << fast.cluster_median << " " << ref.cluster_median;
  EXPECT_TRUE(same(fast.mad, ref.mad)) << fast.mad << " " << ref.mad;
  EXPECT_TRUE(same(fast.pair_median, ref.pair_median));
  ASSERT_EQ(fast.nodes.size(), ref.nodes.size());
  for (std::size_t v = 0; v < ref.nodes.size(); ++v) {
    const NodeVerdict &f = fast.nodes[v], &r = ref.nodes[v];
    SCOPED_TRACE(v);
    EXPECT_EQ(f.node, r.node);
    EXPECT_EQ(f.kind, r.kind);
    EXPECT_EQ(f.reason, r.reason);
    EXPECT_TRUE(same(f.score, r.score)) << f.score << " " << r.score;
    EXPECT_TRUE(same(f.drop, r.drop)) << f.drop << " " << r.drop;
    EXPECT_TRUE(same(f.reference, r.reference)) << f.reference << " " << r.reference;
    ASSERT_EQ(f.worst_partners.size(), r.worst_partners.size());
    for (std::size_t i = 0; i < f.worst_partners.size(); ++i) {
      EXPECT_EQ(f.worst_partners[i].first, r.worst_partners[i].first);
      EXPECT_TRUE(same(f.worst_partners[i].second, r.worst_partners[i].second));
    }
  }
  expect_same_links(fast.slow_links, ref.slow_links, "slow");
  expect_same_links(fast.suspect_links, ref.suspect_links, "suspect");
  EXPECT_EQ(fast.fabric_wide_rounds, ref.fabric_wide_rounds);
  ASSERT_EQ(fast.matrix.size(), ref.matrix.size());
  for (std::size_t v = 0; v < ref.matrix.size(); ++v)
    for (std::size_t u = 0; u < ref.matrix.size(); ++u) EXPECT_TRUE(same(fast.matrix[v][u], ref.matrix[v][u]));
}

struct Cluster {
  int n = 16;
  bool pairwise = true;
  std::set<int> slow;
  std::set<std::pair<int, int>> links;
  bool busy = false;
};

// One random cluster: nodes a few percent apart, the slow ones and the slow links well below,
// noise per iteration, sometimes a fabric-wide round, a pair with few samples, a lost sample.
std::vector<PairSample> measure(const Cluster& c, std::mt19937& gen) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> node(c.n);
  for (double& x : node) x = 1 + 0.03 * (u(gen) - 0.5);
  for (int v : c.slow) node[v] = 0.2 + 0.6 * u(gen);
  const double noise = 0.01 + 0.1 * u(gen);
  // Mostly a few iterations a pair (sorted by insertion), sometimes more than 16 (selected).
  const int iters = u(gen) < 0.25 ? 17 + static_cast<int>(10 * u(gen)) : 2 + static_cast<int>(4 * u(gen));
  const Schedule s = c.pairwise ? pairwise_schedule(c.n) : screen_schedule(c.n);
  const int wide = u(gen) < 0.2 ? static_cast<int>(u(gen) * static_cast<double>(s.size())) : -1;
  std::vector<PairSample> out;
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (auto [a, b] : s[r].pairs) {
      double level = 100 * std::min(node[a], node[b]);
      if (c.links.count({a, b})) level *= 0.3 + 0.4 * u(gen);
      if (r == wide) level *= 0.4;
      PairSample p{a, b, r, {}};
      const int k = u(gen) < 0.03 ? 1 : iters;
      if (u(gen) > 0.01)
        for (int i = 0; i < k; ++i) p.rates.push_back(level * (1 + noise * (2 * u(gen) - 1)) * (c.busy && u(gen) < 0.1 ? 0.5 : 1));
      out.push_back(std::move(p));
    }
  return out;
}

// The confirmation a hunt would run after these samples, measured the same way.
void confirm(std::vector<PairSample>& samples, const Cluster& c, int n, const AttributionOptions& o, std::mt19937& gen) {
  const Attribution first = attribute(samples, n, o);
  const Schedule s = confirmation_schedule({&first});
  std::uniform_real_distribution<double> u(0, 1);
  int round = 1000;
  for (const auto& r : s) {
    for (auto [a, b] : r.pairs) {
      double level = (c.slow.count(a) || c.slow.count(b)) ? 40 : 100;
      if (c.links.count({std::min(a, b), std::max(a, b)})) level *= 0.5;
      PairSample p{a, b, round, {}, true};
      for (int i = 0; i < 3; ++i) p.rates.push_back(level * (1 + 0.05 * (2 * u(gen) - 1)));
      samples.push_back(std::move(p));
    }
    ++round;
  }
}

TEST(AttributionFast, AgreesWithTheReferenceOnRandomClusters) {
  std::mt19937 gen(2024);
  int cases = 0;
  struct {
    std::size_t stragglers = 0, doubts = 0, links = 0, suspect_links = 0, wide = 0;
  } seen;
  for (int faults : {0, 1, 2, 5})
    for (bool busy : {false, true})
      for (bool pairwise : {true, false})
        for (int seed = 0; seed < 6; ++seed) {
          std::uniform_int_distribution<int> size(pairwise ? 4 : 6, pairwise ? 40 : 150);
          Cluster c;
          c.n = size(gen);
          c.pairwise = pairwise;
          c.busy = busy;
          const Schedule s = pairwise ? pairwise_schedule(c.n) : screen_schedule(c.n);
          std::uniform_int_distribution<int> node(0, c.n - 1), round(0, static_cast<int>(s.size()) - 1);
          // Slow nodes, slow links, or both.
          for (int i = 0; i < faults; ++i) {
            if (seed % 3 != 1) c.slow.insert(node(gen));
            if (seed % 3 != 0) {
              const Round& r = s[static_cast<std::size_t>(round(gen))];
              c.links.insert(r.pairs[static_cast<std::size_t>(node(gen)) % r.pairs.size()]);
            }
          }
          AttributionOptions o;
          if (busy) o = busy_host_rule(o);
          std::vector<PairSample> samples = measure(c, gen);
          SCOPED_TRACE(testing::Message() << "n=" << c.n << " faults=" << faults << " busy=" << busy
                                          << " pairwise=" << pairwise << " seed=" << seed);
          const Attribution first = attribute(samples, c.n, o);
          expect_same(first, reference_impl::attribute(samples, c.n, o));
          confirm(samples, c, c.n, o, gen);
          o.require_confirmation = true;
          const Attribution confirmed = attribute(samples, c.n, o);
          expect_same(confirmed, reference_impl::attribute(samples, c.n, o));
          for (const Attribution* a : {&first, &confirmed}) {
            for (const auto& nv : a->nodes) {
              seen.stragglers += nv.kind == NodeVerdict::Kind::Straggler;
              seen.doubts += nv.kind == NodeVerdict::Kind::Inconclusive;
            }
            seen.links += a->slow_links.size();
            seen.suspect_links += a->suspect_links.size();
            seen.wide += a->fabric_wide_rounds.size();
          }
          ++cases;
        }
  EXPECT_EQ(cases, 96);
  // The cases reach every kind of verdict.
  EXPECT_GT(seen.stragglers, 0u);
  EXPECT_GT(seen.doubts, 0u);
  EXPECT_GT(seen.links, 0u);
  EXPECT_GT(seen.suspect_links, 0u);
  EXPECT_GT(seen.wide, 0u);
}

TEST(AttributionFast, AgreesOnALargerCluster) {
  // Enough pairs (4,950) and iterations that the medians of all of them are radix-selected.
  std::mt19937 gen(99);
  for (int faults : {0, 1, 2, 5})
    for (bool busy : {false, true}) {
      Cluster c;
      c.n = 100;
      c.busy = busy;
      const Schedule s = pairwise_schedule(c.n);
      std::uniform_int_distribution<int> node(0, c.n - 1);
      for (int i = 0; i < faults; ++i) {
        c.slow.insert(node(gen));
        const Round& r = s[static_cast<std::size_t>(node(gen)) % s.size()];
        c.links.insert(r.pairs[static_cast<std::size_t>(node(gen)) % r.pairs.size()]);
      }
      AttributionOptions o;
      if (busy) o = busy_host_rule(o);
      const std::vector<PairSample> samples = measure(c, gen);
      SCOPED_TRACE(testing::Message() << "faults=" << faults << " busy=" << busy);
      expect_same(attribute(samples, c.n, o), reference_impl::attribute(samples, c.n, o));
    }
}

TEST(AttributionFast, AgreesOnTiesAndFewPairs) {
  // Equal medians everywhere (ties in every order statistic), and clusters of 2 to 5 nodes.
  for (int n = 2; n <= 9; ++n) {
    SCOPED_TRACE(n);
    std::vector<PairSample> samples;
    const Schedule s = pairwise_schedule(n);
    for (int r = 0; r < static_cast<int>(s.size()); ++r)
      for (auto [a, b] : s[r].pairs) {
        const double v = a == 1 || b == 1 ? 50.0 : 100.0;
        samples.push_back({a, b, r, {v, v, v}});
      }
    expect_same(attribute(samples, n), reference_impl::attribute(samples, n));
    for (auto& p : samples) p.rates = {10, 10, 10};
    expect_same(attribute(samples, n), reference_impl::attribute(samples, n));
  }
}

}  // namespace
}  // namespace collbench::report
