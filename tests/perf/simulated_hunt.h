// A hunt as rank 0 holds it, for the benchmarks: n nodes of one rank each, every pair of a schedule
// measured 3 times at `rate(a, b)` GB/s with ±5% noise (a fixed seed, so runs compare).
#pragma once

#include <random>
#include <string>
#include <vector>

#include "bench/schedules.h"
#include "reports/hunt/hunt_json.h"

namespace collbench::micro {

class SimulatedHunt {
 public:
  explicit SimulatedHunt(int n) {
    for (int i = 0; i < n; ++i) record.header.world.nodes.push_back({"node" + std::to_string(i), {i}});
    record.header.world.ranks = n;
  }
  // Three noisy samples around `base`.
  std::vector<double> rates(double base) { return {base * noise_(gen_), base * noise_(gen_), base * noise_(gen_)}; }

  report::HuntRecord record;

 private:
  std::mt19937 gen_{1};
  std::uniform_real_distribution<double> noise_{0.95, 1.05};
};

}  // namespace collbench::micro
