// The timing loop: for every case, warm up, time until the stopping rule says so, check results
// in a separate untimed pass, and gather everything on rank 0.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bench/backend.h"
#include "bench/control.h"
#include "bench/plan.h"
#include "bench/stopping.h"
#include "bench/watchdog.h"

namespace collbench {

struct CaseMeasurement {
  std::size_t index = 0;  // case number in run order
  const CaseRow* row = nullptr;
  Placement placement = Placement::OutOfPlace;
  std::vector<std::vector<double>> samples_s;  // [global rank][iteration], seconds
  std::vector<std::optional<std::int64_t>> wrong_by_process;  // nullopt when not checkable
  std::optional<std::int64_t> wrong;                          // summed over every process
  StopReason stop = StopReason::Fixed;
  // The largest share of the timed loop's wall time that any process spent runnable but waiting
  // for a CPU (/proc/self/schedstat): a case measured on a busy host. Negative: not known.
  double cpu_wait_share = -1;
  // When each process started each timed iteration, on rank 0's clock ([process][iteration],
  // seconds), and the clock sync's error bound per process. Empty when the backend does not record
  // starts (Backend::run).
  std::vector<std::vector<double>> arrival_s;
  std::vector<double> clock_error_s;
};

// The sizes of one op that RunOptions::op_budget_s left out.
struct SkippedSizes {
  Coll coll = Coll::AllReduce;
  std::uint64_t first_bytes = 0;
  int cases = 0;
};

// Called on rank 0 as each case finishes.
using CaseSink = std::function<void(const CaseMeasurement&)>;

std::string describe_case(const CaseRow& row, Placement p);

// Returns what op_budget_s left out (agreed on every rank).
std::vector<SkippedSizes> run_sweep(const Plan& plan, const RunOptions& opts, Backend& backend, Control& control,
                                    Watchdog& watchdog, const CaseSink& sink);

}  // namespace collbench
