// The hunt at 1,024 and 4,096 nodes on a model of the fabric instead of MPI: hunt_phase's order of
// steps (launcher/phases/hunt_phase.cpp) over its real parts — the auto schedule, the default budget and
// each round's slice of it, attribution of the first rounds, the confirmation schedule, the
// confirmed verdict with the busy-host rule — with each pair's samples drawn from per-node and
// per-link rates, noise, and busy hosts. Simulated time charges every round the slowest pair's
// iterations at the 5th percentile of its rate, plus a fixed set-up.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>

#include "bench/schedules.h"
#include "launcher/job/budget.h"
#include "launcher/phases/confirmation.h"
#include "reports/pairs/attribution.h"
#include "reports/pairs/busy_hosts.h"

namespace collbench {
namespace {

using report::NodeVerdict;

struct Fabric {
  int n = 0;
  std::map<int, double> slow_nodes;                 // node -> share of a healthy node's rate
  std::map<std::pair<int, int>, double> slow_links;  // (a < b) -> share of the rate
  std::set<int> busy;                               // hosts whose CPUs are oversubscribed
  double noise = 0.03;                              // lognormal sigma of one iteration
  double busy_noise = 0.15;                         // and on a busy host
  std::vector<double> node_rate;                    // healthy nodes differ by a few percent

  Fabric(int nodes, unsigned seed) : n(nodes), node_rate(static_cast<std::size_t>(nodes)) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(0.98, 1.02);
    for (double& r : node_rate) r = u(gen);
  }
  // The pair's typical rate, relative to a healthy pair's 1.
  double rate(int a, int b) const {
    double r = std::min(level(a), level(b));
    if (auto it = slow_links.find({std::min(a, b), std::max(a, b)}); it != slow_links.end()) r *= it->second;
    return r;
  }
  double sigma(int a, int b) const { return busy.count(a) || busy.count(b) ? busy_noise : noise; }
  double level(int v) const {
    auto it = slow_nodes.find(v);
    return node_rate[static_cast<std::size_t>(v)] * (it == slow_nodes.end() ? 1.0 : it->second);
  }
};

struct Sim {
  const Fabric& f;
  std::mt19937 gen{11};
  static constexpr double kHealthyGbs = 100;
  static constexpr double kIteration_s = 0.005;  // the probe's target for the median pair
  static constexpr double kSetup_s = 0.5;        // split, warm-up launch, gather at a few thousand ranks
  static constexpr int kMaxIters = 200, kWarmup = 5;
  double elapsed_s = 0;
  std::vector<report::PairSample> samples;
  std::vector<double> round_s;

  // One round: every pair runs until it has kMaxIters samples or the slice is spent (at least 3).
  void round(const Round& r, int index, double slice_s, bool confirmation) {
    double longest = 0;
    for (auto [a, b] : r.pairs) {
      const double rate = f.rate(a, b), sigma = f.sigma(a, b);
      // Time at the 5th percentile of its rate: what the round's wall clock must allow for.
      const double it_s = kIteration_s / (rate * std::exp(-1.645 * sigma));
      const int iters = std::clamp(static_cast<int>(slice_s / it_s), 3, kMaxIters);
      longest = std::max(longest, (kWarmup + iters) * it_s);
      std::lognormal_distribution<double> noise(0, sigma);
      report::PairSample s{a, b, index, {}, confirmation};
      for (int i = 0; i < iters; ++i) s.rates.push_back(kHealthyGbs * rate * noise(gen));
      samples.push_back(std::move(s));
    }
    round_s.push_back(kSetup_s + longest);
    elapsed_s += round_s.back();
  }
};

struct Outcome {
  report::Attribution verdict;
  int pair_rounds = 0, confirm_rounds = 0;
  double budget_s = 0, elapsed_s = 0, attribute_s = 0;
};

// hunt_phase's steps for --pattern auto with nodes alike: a node phase (timed only), the pair rounds,
// the confirmation, the verdict.
Outcome hunt(const Fabric& f) {
  Outcome out;
  Sim sim{f, std::mt19937{11}, 0.0, {}, {}};
  const Schedule schedule = schedule_for_pattern("auto", f.n);
  const int planned = static_cast<int>(schedule.size()) + 1;
  out.budget_s = default_budget_s(planned);
  const double long_round_s = std::max(2.0, 100 * Sim::kIteration_s);
  auto slice = [&](int rounds_left) { return round_slice_s(out.budget_s - sim.elapsed_s, rounds_left, long_round_s); };
  // The node phase: every node's own collective at once, one slice.
  const double node_slice = slice(planned + 2);
  sim.elapsed_s += Sim::kSetup_s + std::min(node_slice, Sim::kMaxIters * Sim::kIteration_s);
  int index = 1;
  auto pair_rounds = [&](const Schedule& s, bool confirmation) {
    int done = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double sl = slice(static_cast<int>(s.size() - i));
      if (sl <= 0) break;
      sim.round(s[i], index++, sl, confirmation);
      ++done;
    }
    return done;
  };
  out.pair_rounds = pair_rounds(schedule, false);
  const auto t0 = std::chrono::steady_clock::now();
  const report::Attribution first = report::attribute(sim.samples, f.n);
  const Schedule confirm = confirmation_schedule({&first});
  out.confirm_rounds = pair_rounds(confirm, true);
  report::AttributionOptions rule;
  rule.require_confirmation = true;
  std::vector<double> load(static_cast<std::size_t>(f.n), 0.5);
  for (int v : f.busy) load[static_cast<std::size_t>(v)] = 2.0;
  if (report::any_host_busy(load)) rule = report::busy_host_rule(rule);
  out.verdict = report::attribute(sim.samples, f.n, rule);
  out.attribute_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.elapsed_s = sim.elapsed_s;
  return out;
}

std::vector<int> of_kind(const report::Attribution& a, NodeVerdict::Kind k) {
  std::vector<int> out;
  for (const auto& nv : a.nodes)
    if (nv.kind == k) out.push_back(nv.node);
  return out;
}

std::vector<std::pair<int, int>> links(const std::vector<report::LinkVerdict>& ls) {
  std::vector<std::pair<int, int>> out;
  for (const auto& l : ls) out.push_back({std::min(l.a, l.b), std::max(l.a, l.b)});
  std::sort(out.begin(), out.end());
  return out;
}

void expect_found(const Fabric& f, const Outcome& o, const char* scenario) {
  std::printf("[ simulated ] %s, %d nodes: %d pair rounds + %d confirmation, %.1f s simulated of a %.0f s budget, "
              "attribution %.3f s; stragglers",
              scenario, f.n, o.pair_rounds, o.confirm_rounds, o.elapsed_s, o.budget_s, o.attribute_s);
  for (int v : of_kind(o.verdict, NodeVerdict::Kind::Straggler)) std::printf(" n%d", v);
  std::printf("; slow links");
  for (auto [a, b] : links(o.verdict.slow_links)) std::printf(" n%d-n%d", a, b);
  std::printf("; in doubt %zu nodes, %zu links\n", of_kind(o.verdict, NodeVerdict::Kind::Inconclusive).size(),
              o.verdict.suspect_links.size());
  std::vector<int> slow;
  for (const auto& [v, share] : f.slow_nodes) slow.push_back(v);
  std::vector<std::pair<int, int>> slow_links;
  for (const auto& [l, share] : f.slow_links) slow_links.push_back(l);
  EXPECT_EQ(of_kind(o.verdict, NodeVerdict::Kind::Straggler), slow);
  EXPECT_EQ(links(o.verdict.slow_links), slow_links);
  EXPECT_EQ(of_kind(o.verdict, NodeVerdict::Kind::Inconclusive), std::vector<int>{});
  EXPECT_TRUE(o.verdict.suspect_links.empty());
  EXPECT_LE(o.pair_rounds, std::log2(f.n) + 3);
  // Something to confirm exactly when something was planted.
  EXPECT_EQ(o.confirm_rounds > 0, !f.slow_nodes.empty() || !f.slow_links.empty());
  EXPECT_LE(o.elapsed_s, o.budget_s);
}

// A pair of the screen's first round, so the link is measured.
std::pair<int, int> screened_pair(int n, std::size_t at) {
  const Schedule s = screen_schedule(n);
  return s[0].pairs[at % s[0].pairs.size()];
}

class SimulatedHunt : public testing::TestWithParam<int> {};

TEST_P(SimulatedHunt, NamesOneSlowNodeAndOneSlowLink) {
  const int n = GetParam();
  Fabric f(n, 1);
  f.slow_nodes[n / 3] = 0.6;
  f.slow_links[screened_pair(n, 100)] = 0.5;
  expect_found(f, hunt(f), "one slow node, one slow link");
}

TEST_P(SimulatedHunt, NamesTwoSlowNodesApart) {
  const int n = GetParam();
  Fabric f(n, 2);
  f.slow_nodes[5] = 0.5;
  f.slow_nodes[n - 7] = 0.7;
  expect_found(f, hunt(f), "two slow nodes");
}

TEST_P(SimulatedHunt, OnBusyHostsNamesOnlyWhatIsFarBelow) {
  // Contention widens every busy pair's spread; the busy-host rule names only a quarter's rate.
  const int n = GetParam();
  Fabric f(n, 3);
  for (int v = 0; v < n; v += 50) f.busy.insert(v);
  f.slow_nodes[n / 2 + 1] = 0.15;
  f.slow_links[screened_pair(n, 33)] = 0.2;
  expect_found(f, hunt(f), "busy hosts, a node and a link far below");
}

TEST_P(SimulatedHunt, HealthyClusterPasses) {
  Fabric f(GetParam(), 4);
  expect_found(f, hunt(f), "healthy");
}

INSTANTIATE_TEST_SUITE_P(Nodes, SimulatedHunt, testing::Values(1024, 4096));

}  // namespace
}  // namespace collbench
