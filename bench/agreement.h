// Set-up steps that every process takes together. A process that fails a step must not leave the
// others waiting in the next collective (an MPI broadcast, an NCCL init): every step ends with an
// agreement on its outcome, so all processes leave together.
#pragma once

#include <functional>
#include <stdexcept>

#include "bench/control.h"
#include "bench/errors.h"

namespace collbench {

// Thrown on every process when a step failed somewhere; the failing processes reported their own
// error through the step's `report` callback first.
struct StepFailed : std::runtime_error {
  StepFailed(int code, bool here) : std::runtime_error("set-up step failed"), exit_code(code), failed_here(here) {}
  int exit_code;     // the worst over all processes: kExitUsage for bad input, else kExitCouldNotRun
  bool failed_here;  // this process failed (and reported it)
};

// Called at once on a process whose step threw, before anything collective: the message cannot be
// lost if a peer then hangs or the job is killed.
using FailureReport = std::function<void(const std::exception&)>;

// Runs `step` here, then agrees over `control`; throws StepFailed everywhere if it failed anywhere.
void agreed_step(Control& control, const FailureReport& report, const std::function<void()>& step);

}  // namespace collbench
