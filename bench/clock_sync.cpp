#include "bench/clock_sync.h"

#include <array>
#include <chrono>
#include <limits>

namespace collbench {

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ClockSync sync_clocks(Control& control, const std::vector<std::string>& domain_of_process, int rounds,
                      double (*clock)()) {
  const int me = control.rank();
  const auto n = static_cast<std::size_t>(control.size());
  // Every process's clock domain's first process: the one measured.
  std::vector<std::size_t> first(n);
  for (std::size_t p = 0; p < n; ++p) {
    first[p] = p;
    for (std::size_t q = 0; q < p; ++q)
      if (domain_of_process[q] == domain_of_process[p]) {
        first[p] = q;
        break;
      }
  }
  ClockSync out;
  if (me == 0) out.offset_s.assign(n, 0.0), out.error_s.assign(n, 0.0);
  for (std::size_t p = 1; p < n; ++p) {
    if (first[p] != p) continue;  // reads a measured process's clock (rank 0's: offset 0, exact)
    const int peer = static_cast<int>(p);
    if (me == 0) {
      double best_rtt = std::numeric_limits<double>::infinity();
      for (int r = 0; r < rounds; ++r) {
        std::array<double, 1> reading{};
        const double t0 = clock();
        control.send(peer, std::array<double, 1>{t0});
        control.receive(peer, reading);
        const double t1 = clock();
        if (t1 - t0 < best_rtt) {
          best_rtt = t1 - t0;
          out.offset_s[p] = reading[0] - (t0 + t1) / 2;
          out.error_s[p] = best_rtt / 2;
        }
      }
    } else if (me == peer) {
      for (int r = 0; r < rounds; ++r) {
        std::array<double, 1> ping{};
        control.receive(0, ping);
        control.send(0, std::array<double, 1>{clock()});
      }
    }
  }
  if (me == 0)
    for (std::size_t p = 1; p < n; ++p) {
      out.offset_s[p] = out.offset_s[first[p]];
      out.error_s[p] = out.error_s[first[p]];
    }
  return out;
}

}  // namespace collbench
