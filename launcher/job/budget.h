// The wall-time budget that hunt and fabric share: its default, and each round's share of it.
#pragma once

#include <chrono>

#include "bench/control.h"

namespace collbench {

// The default --budget: 60 s plus 15 s per planned round and for two confirmation rounds, so it
// grows with the schedule: about 2.5 minutes up to 8 nodes.
double default_budget_s(int planned_rounds);

// How long one round may time its iterations: an even share of what is left of the budget over
// the rounds still to run, less a third for set-up, warm-up and gathering, and no more than
// `long_round_s` (a round that long has all the samples a verdict needs). Zero: the budget cannot
// fit another round.
double round_slice_s(double left_s, int rounds_left, double long_round_s);

// A budget that started when it was made. Rank 0's clock rules: its slice is every rank's.
class Budget {
 public:
  explicit Budget(double total_s) : total_s_(total_s) {}
  // --budget `given_s`, or when it is 0 the default for a schedule of `planned_rounds` rounds.
  static Budget for_rounds(double given_s, int planned_rounds) {
    return Budget(given_s > 0 ? given_s : default_budget_s(planned_rounds));
  }
  double total_s() const { return total_s_; }
  double elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // Collective over `control`: round_slice_s for the next of `rounds_left` rounds, agreed.
  double next_slice(Control& control, int rounds_left, double long_round_s) const;

 private:
  using Clock = std::chrono::steady_clock;
  double total_s_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace collbench
