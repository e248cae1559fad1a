// How busy this host's CPUs are: runnable tasks per online core. Above 1 the cores are
// oversubscribed, and anything CPU-bound (the mpi backend's intra-node copies, progress threads)
// runs slower for reasons outside the node's internal path.
#pragma once

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

// Online cores of this machine; 0 when unknown.
int online_cores();

// The running kernel's boot id: processes that share it share the CPUs, whatever hostname or
// network namespace they have (a fake cluster's nodes, pods on one node). The hostname when
// /proc does not say.
std::string machine_id();

}  // namespace collbench
