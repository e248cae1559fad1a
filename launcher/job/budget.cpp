#include "launcher/job/budget.h"

#include <algorithm>

namespace collbench {

double default_budget_s(int planned_rounds) { return 60.0 + 15.0 * (planned_rounds + 2); }

double round_slice_s(double left_s, int rounds_left, double long_round_s) {
  if (rounds_left <= 0) return 0;
  const double share = left_s / rounds_left;
  if (share < 0.5) return 0;  // not even the set-up of a round
  return std::min(share * 2 / 3, long_round_s);
}

double Budget::next_slice(Control& control, int rounds_left, double long_round_s) const {
  return control.broadcast(control.rank() == 0 ? round_slice_s(total_s_ - elapsed_s(), rounds_left, long_round_s)
                                               : 0.0);
}

}  // namespace collbench
