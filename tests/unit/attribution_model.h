// Synthetic pair measurements for the attribution tests: a model of each pair's busbw, noise,
// and helpers to read verdicts and findings.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/schedules.h"
#include "reports/pairs/attribution.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report::attribution_model {

using Kind = NodeVerdict::Kind;
// busbw of one sample of pair (a, b) in a round.
using Model = std::function<double(int a, int b, int round)>;

inline std::vector<PairSample> measure(const Schedule& s, int samples, const Model& bw) {
  std::vector<PairSample> out;
  for (int r = 0; r < static_cast<int>(s.size()); ++r)
    for (const auto& [a, b] : s[r].pairs) {
      PairSample p{a, b, r, {}};
      for (int i = 0; i < samples; ++i) p.rates.push_back(bw(a, b, r));
      out.push_back(std::move(p));
    }
  return out;
}

// Multiplicative noise, uniform within +-frac.
inline Model noisy(double frac, Model base, unsigned seed = 7) {
  auto gen = std::make_shared<std::mt19937>(seed);
  return [=](int a, int b, int r) {
    std::uniform_real_distribution<double> u(1 - frac, 1 + frac);
    return base(a, b, r) * u(*gen);
  };
}

inline std::vector<int> of_kind(const Attribution& at, Kind k) {
  std::vector<int> out;
  for (const auto& nv : at.nodes)
    if (nv.kind == k) out.push_back(nv.node);
  return out;
}

inline std::vector<std::string> hosts(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("ip-198-18-0-" + std::to_string(10 + i));
  return out;
}

// A pair runs at the pace of its slower node.
inline Model slow_nodes(std::set<int> slow, double factor) {
  return [=](int a, int b, int) { return (slow.count(a) || slow.count(b)) ? 100.0 * factor : 100.0; };
}

}  // namespace collbench::report::attribution_model
