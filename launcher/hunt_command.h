// `collbench hunt`: node pairs measured in concurrent rounds, then straggler attribution.
#pragma once

#include "launcher/cli.h"

namespace collbench {

// Called with MPI initialised; returns the process exit code.
int hunt_command(const Command& cmd, const std::vector<std::string>& argv);

}  // namespace collbench
