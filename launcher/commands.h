// The subcommands that need no MPI: each returns the process exit code (bench/errors.h).
#pragma once

#include "launcher/cli.h"

namespace collbench {

int analyze_command(const Command& cmd);
int compare_command(const Command& cmd);
int derive_thresholds_command(const Command& cmd);

}  // namespace collbench
