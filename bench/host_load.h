// How busy this host's CPUs are: runnable tasks per online core. Above 1 the cores are
// oversubscribed, and anything CPU-bound (the mpi backend's intra-node copies, progress threads)
// runs slower for reasons outside the node's internal path.
#pragma once

#include <optional>
#include <string_view>

namespace collbench {

// The "procs_running N" line of /proc/stat text; nullopt when absent or malformed.
std::optional<int> procs_running(std::string_view proc_stat);

// procs_running / online cores, read now; 0 when /proc/stat cannot be read.
double runnable_per_core();

}  // namespace collbench
