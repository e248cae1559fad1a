// Picks and builds the backend: --backend auto|nccl|mpi. Collective: every process calls it, and
// every process leaves it the same way (a backend, or StepFailed).
#pragma once

#include <memory>
#include <string>

#include "bench/agreement.h"
#include "bench/backend.h"
#include "bench/control.h"
#include "bench/options.h"
#include "bench/watchdog.h"

namespace collbench {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string reason;  // why this one, printed in the header ("auto: no GPU visible")
};

// The backend for `opts`, built with every set-up step agreed over `control`. A process that fails
// a step reports it through `report` at once (the message names its rank and host); then every
// process throws StepFailed. `watchdog`, when given, is armed for each step (--timeout each) so a
// hang names the step.
BackendChoice make_backend(const RunOptions& opts, Control& control, const FailureReport& report,
                           Watchdog* watchdog = nullptr);

}  // namespace collbench
