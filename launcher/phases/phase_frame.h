// What every measuring phase has around its measurement, in one place: the watchdog that turns a
// step that never finishes into COLLECTIVE_HANG naming the suspects, the stop scope that saves rank
// 0's record when a signal or a hang ends the job, the teardown of a failed set-up, the EFA counter
// watch and the phase's wall clock. A phase measures and returns a typed PhaseResult; how it ends
// early is the frame's. Not here: what a phase measures (run_phase, hunt_phase, fabric_phase) and
// how a command prints its ending (launcher/commands/finish.h).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "bench/control.h"
#include "bench/errors.h"
#include "bench/watchdog.h"
#include "launcher/job/budget.h"
#include "launcher/job/stop_signals.h"
#include "launcher/phases/phase.h"
#include "launcher/probes/efa_counters.h"
#include "reports/core/journal.h"

namespace collbench {

// Rank 0's record of a phase as an early end needs it.
class EarlyRecord {
 public:
  virtual ~EarlyRecord() = default;
  // How far the phase got: stopped_progress(...), e.g. "after 3 rounds; they are saved ...".
  virtual std::string progress() = 0;
  // The document of what was measured so far, ending with `why` (a hang, a signal).
  virtual nlohmann::json document_so_far(const report::Finding& why, int exit_code) = 0;
  // Writes `doc` (already marked incomplete) where the phase writes its results, if anywhere. No
  // fsync: a stopped process may have a second before SIGKILL.
  virtual void save_early(const nlohmann::json& doc) = 0;
};

// Opens --json's journal in `into` (`path`; `first`: its first line, or the run's header); a path
// that cannot be written is a UsageError naming it. For run, hunt and preflight alike.
template <class First>
void open_journal(std::optional<report::Journal>& into, const std::string& path, const First& first) {
  try {
    into.emplace(path, first);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--json: ") + e.what() + "; choose a writable path");
  }
}

// A document that ends before its work did: "complete": false, and `why` as its error. The frame's
// early end and preflight's (a chain of phases) both mark theirs so.
void mark_incomplete(nlohmann::json& doc, const report::Finding& why);

class PhaseFrame {
 public:
  // `hang_prefix` names the phase in a hang's step ("hunt "); `timeout_s` is each set-up step's limit.
  PhaseFrame(Control& control, double timeout_s, bool color, std::string hang_prefix = "");
  PhaseFrame(const PhaseFrame&) = delete;
  PhaseFrame& operator=(const PhaseFrame&) = delete;

  Control& control() { return control_; }
  int rank() const { return rank_; }
  Watchdog& watchdog() { return watchdog_; }
  double elapsed_s() const { return wall_.elapsed_s(); }

  // Arms the watchdog for one step of --timeout; quiet() disarms it.
  void step(const std::string& what) { watchdog_.arm(what, timeout_s_); }
  void quiet() { watchdog_.disarm(); }
  // From here an early end saves `record` (rank 0); before, it says the phase was in set-up.
  void keep(std::shared_ptr<EarlyRecord> record);
  // A set-up step failed on some process (`code` agreed): the teardown that follows is a step too.
  PhaseResult failed_setup(int code);
  // The EFA counters before and after the measurement: collectives, each a step under the watchdog.
  void start_counters();
  report::CounterReport finish_counters();
  // `out` with the phase's wall time.
  PhaseResult ended(PhaseResult out) const;

 private:
  StopSaved save(const EarlyEnd& end);
  void on_hang(const std::string& what, double limit_s);

  Control& control_;
  const int rank_;
  const double timeout_s_;
  const bool color_;
  const std::string hang_prefix_;
  const Budget wall_{0};
  std::mutex mutex_;  // guards record_: the stop thread reads it
  std::shared_ptr<EarlyRecord> record_;
  Watchdog watchdog_;
  std::optional<EfaCounterWatch> counters_;
  StopScope stop_;
};

}  // namespace collbench
