// A sweep as one phase: backend and plan set up, every case measured and printed as it finishes,
// and its findings (run, and preflight's node and world sweeps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/control.h"
#include "launcher/cli/command.h"
#include "launcher/phases/phase.h"

namespace collbench {

struct RunPhaseSpec {
  const RunOptions& opts;
  const VerdictOptions& verdict;
  std::vector<std::string> argv;
  bool color = false;
  std::string baseline;  // run --baseline, or empty
  std::optional<double> tolerance;
  // Set: the environment audit's findings go here instead of into the phase's (preflight reports
  // them as a phase of their own).
  std::vector<report::Finding>* environment = nullptr;
};

// Collective over `control`. A set-up step that fails anywhere fails the phase on every process;
// a failure mid-sweep, or a hang, ends the job (the watchdog and Control::abort).
PhaseResult run_phase(Control& control, const RunPhaseSpec& spec);

}  // namespace collbench
