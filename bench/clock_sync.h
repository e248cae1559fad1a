// Offsets between the processes' clocks, so that times taken on different hosts can be put on rank
// 0's clock: the arrival times of the late-rank estimate (reports/run/arrival.h).
#pragma once

#include <string>
#include <vector>

#include "bench/control.h"

namespace collbench {

// This process's steady (monotonic) clock, in seconds. Processes on one host share it.
double steady_now_s();

struct ClockSync {
  // Per process: its clock minus rank 0's, and a bound on the error of that figure (seconds).
  std::vector<double> offset_s;
  std::vector<double> error_s;
};

// Collective. Processes that run on one kernel read one monotonic clock (a host's ranks, its pods,
// a fake cluster's namespaces), so `domain_of_process` (machine_id(): the kernel's boot id) groups
// them, and rank 0 measures one process per domain other than its own: `rounds` ping-pongs, keeping
// the one with the shortest round trip. The peer read its clock somewhere inside that round trip, so
// half of it bounds the error. On rank 0 only; empty elsewhere. `clock` is steady_now_s but in tests.
ClockSync sync_clocks(Control& control, const std::vector<std::string>& domain_of_process, int rounds,
                      double (*clock)() = steady_now_s);

}  // namespace collbench
