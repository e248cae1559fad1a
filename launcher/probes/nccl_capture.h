// The capture of NCCL's own INFO log during set-up, for reports/env/nccl_log.h: what NCCL chose
// (transport, plugin, channels) and what it warned about, per process.
#pragma once

#include <optional>
#include <string>

#include "reports/env/nccl_log.h"

namespace collbench {

// Set by prepare_nccl_debug_capture(): the capture directory. Its presence also tells the
// environment collection that NCCL_DEBUG* are ours, not the user's.
inline constexpr const char* kNcclCaptureVar = "COLLBENCH_NCCL_DEBUG_CAPTURE";

// Before NCCL initialises: unless the user set NCCL_DEBUG, sets NCCL_DEBUG=INFO,
// NCCL_DEBUG_SUBSYS=INIT,NET and NCCL_DEBUG_FILE=<dir>/collbench-nccl.%h.%p.log, and remembers
// <dir> in COLLBENCH_NCCL_DEBUG_CAPTURE for read_nccl_debug_capture(). INIT,NET keep the log to
// start-up lines, so the benchmark itself is not slowed.
// main() calls it before MPI_Init, so nothing reads the environment while it is written.
void prepare_nccl_debug_capture(const std::string& dir);
// <temp dir>/collbench-nccl.
std::string default_nccl_capture_dir();

// After NCCL initialised: parses this process's log file and removes it. nullopt when no capture
// was prepared or the file is missing; never throws.
std::optional<report::NcclLogFacts> read_nccl_debug_capture();

// ---- exposed for tests ----

// The file NCCL writes for NCCL_DEBUG_FILE=<dir>/collbench-nccl.%h.%p.log: %h is the host name up to
// its first dot, with '%' and '/' replaced by '-'.
std::string nccl_log_path(const std::string& dir, const std::string& host, int pid);

}  // namespace collbench
