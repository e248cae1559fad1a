// `collbench run`: build the backend and the plan, run the sweep, print and save the results.
#pragma once

#include <string>
#include <vector>

#include "launcher/cli.h"

namespace collbench {

// Called with MPI initialised; returns the process exit code (see bench/errors.h).
int run_command(const Command& cmd, const std::vector<std::string>& argv);

}  // namespace collbench
