// Host memory for buffers, checked before they are allocated: a size that cannot fit is bad input
// (exit 2 naming -e), not a bad_alloc or a host pushed into swap minutes into a run.
#pragma once

#include <cstdint>

namespace collbench {

// MemAvailable from /proc/meminfo, in bytes; 0 when it cannot be read.
std::uint64_t host_memory_available();

// Throws UsageError when `local_ranks` ranks with `buffers` buffers of `bytes` each would take more
// than 90% of `available` (host_memory_available() by default; 0: unknown, nothing checked). `what`
// names the buffers.
void check_host_buffers(std::uint64_t bytes, int buffers, int local_ranks, const char* what,
                        std::uint64_t available = 0);

}  // namespace collbench
