// Reading the EFA devices' hardware counters from sysfs around a phase, one process per node, and
// gathering the deltas to rank 0 (the values and verdicts are reports/counters/).
#pragma once

#include <string>
#include <vector>

#include "bench/control.h"
#include "reports/counters/efa_counters.h"

namespace collbench {

struct CounterReadOptions {
  std::string sysfs_root = "/";  // COLLBENCH_SYSFS_ROOT: tests point it at a fake tree

  static CounterReadOptions from_env();
  std::string infiniband_dir() const;  // <root>/sys/class/infiniband
};

// Every EFA device's counters under `infiniband_dir` (devices as count_efa_devices() decides):
// <dev>/ports/<port>/hw_counters/* and <dev>/hw_counters/* (port 0). A file that is not a number
// is left out; no device, or no such directory, is an empty snapshot.
report::CounterSnapshot read_efa_counters(const std::string& infiniband_dir);

// The counters around one phase. Made on every process at the same point, before the phase
// measures (collective: the lowest rank of each host is the one that reads); finish() on every
// process after it.
class EfaCounterWatch {
 public:
  EfaCounterWatch(Control& control, CounterReadOptions options);
  // Collective: reads again and gathers each node's deltas: the report on rank 0, empty elsewhere.
  report::CounterReport finish(Control& control) const;

 private:
  CounterReadOptions options_;
  std::vector<std::string> hosts_;  // by rank
  bool reader_ = false;
  int devices_ = 0;
  report::CounterSnapshot before_;
};

}  // namespace collbench
