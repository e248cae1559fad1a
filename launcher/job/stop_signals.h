// SIGTERM, SIGINT and SIGHUP (scancel, a Slurm time limit, a deleted pod, Ctrl-C) end a measuring
// command promptly on every process: the signal is taken on a thread of its own, whatever the
// measuring thread is doing (inside a long collective too), the open StopScopes save what was
// measured, and the process exits with 128 + the signal's number.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "reports/core/findings.h"

namespace collbench {

// Blocks the stop signals in the calling thread, so every thread started after it (MPI's, NCCL's,
// the watchdog's) inherits the block, and starts the thread that waits for them. Call once, from
// main, before MPI_Init. MPI's own handlers for these signals then never run.
void start_stop_signal_thread();

// Why a command ends before its work is done: a stop signal, or a hang its watchdog found.
struct EarlyEnd {
  int signo = 0;                       // the stop signal; 0 for a hang
  std::optional<report::Finding> why;  // given for a hang; for a signal each scope says how far it got
  int exit_code = 0;
};

// What a scope's save returns on rank 0 (nothing on the others): the document it saved (or would
// have, without an output file) and its finding with the colour to print it in. After every scope
// has saved, the innermost one's finding is printed: writing comes first, since under mpirun a
// stopped process has about a second before SIGKILL.
struct StopSaved {
  nlohmann::json document;
  std::optional<report::Finding> why;
  bool color = false;
};

// While a scope is alive, an early end calls its `save`, innermost scope first, with the document
// the scope inside it saved (null if none): preflight's phases are scopes within preflight's, and
// a stopped phase's cases belong in its document. `save` must not wait on another process (peers
// may be stopped or gone). `who` names this process in the stderr line, e.g. "rank 3 (host node3)".
class StopScope {
 public:
  using Save = std::function<StopSaved(const EarlyEnd& end, const nlohmann::json& inner)>;
  StopScope(std::string who, Save save);
  ~StopScope();
  StopScope(const StopScope&) = delete;
  StopScope& operator=(const StopScope&) = delete;

 private:
  int id_;
};

// Runs every open scope's save (innermost first), prints the innermost one's finding and exits
// with end.exit_code. A stop signal ends here; so does rank 0 after a hang.
[[noreturn]] void end_early_now(const EarlyEnd& end);

std::string signal_name(int signo);  // "SIGTERM"
int signal_exit_code(int signo);     // 128 + signo, as a shell reports a process a signal ended

// What a scope saves and prints for `end`: its finding, or for a signal STOPPED_BY_SIGNAL with
// `progress`, how far the scope got.
report::Finding early_end_finding(const EarlyEnd& end, const std::string& progress);
// "after 3 cases; they are saved with "complete": false", or "before the first case was measured".
std::string stopped_progress(std::size_t done, const char* unit, bool saved);

}  // namespace collbench
