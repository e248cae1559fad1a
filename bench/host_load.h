// How busy this host's CPUs are: runnable tasks per online core. Above 1 the cores are
// oversubscribed, and anything CPU-bound (the mpi backend's intra-node copies, progress threads)
// runs slower for reasons outside the node's internal path.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace collbench {

// The "procs_running N" line of /proc/stat text; nullopt when absent or malformed.
std::optional<int> procs_running(std::string_view proc_stat);

// procs_running / online cores, read now; 0 when /proc/stat cannot be read.
double runnable_per_core();

// The second field of /proc/self/schedstat text (ns this thread was runnable but waited for a
// CPU), in seconds; nullopt when absent or malformed.
std::optional<double> runqueue_wait_s(std::string_view schedstat);

// runqueue_wait_s of this process's main thread, read now; nullopt where the kernel does not say.
std::optional<double> runqueue_wait_s();

// The share of an interval that a thread spent runnable but waiting for a CPU: the growth of its
// runqueue wait over the interval's wall time, within [0, 1] (the scheduler's clock and
// steady_clock time the same interval slightly differently); -1 when a reading is missing.
double cpu_wait_share(std::optional<double> wait0_s, std::optional<double> wait1_s, double wall_s);

// cpu_wait_share of this thread over what runs between start() and stop(). The wait is read inside
// the clock's readings: a wait around a reading (preempted while reading /proc) then counts against
// an interval that holds it, never against a loop of a few microseconds it came after.
class CpuWaitMeter {
 public:
  using Reader = std::optional<double> (*)();
  explicit CpuWaitMeter(Reader read = [] { return runqueue_wait_s(); }) : read_(read) {}
  void start();
  double stop();

 private:
  Reader read_;
  std::chrono::steady_clock::time_point t0_;
  std::optional<double> wait0_;
};

// Online cores of this machine; 0 when unknown.
int online_cores();

// The running kernel's boot id: processes that share it share the CPUs, whatever hostname or
// network namespace they have (a fake cluster's nodes, pods on one node). The hostname when
// /proc does not say.
std::string machine_id();

}  // namespace collbench
