// `collbench run`: build the backend and the plan, run the sweep, print and save the results.
#pragma once

#include <string>
#include <vector>

#include "bench/options.h"

namespace collbench {

// Called with MPI initialised; returns the process exit code (see bench/errors.h).
int run_command(const RunOptions& opts, const std::vector<std::string>& argv);

}  // namespace collbench
