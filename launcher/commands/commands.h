// The subcommands: each returns the process exit code (bench/errors.h).
#pragma once

#include <string>
#include <vector>

#include "launcher/cli/command.h"

namespace collbench {

// Called with MPI initialised; `argv` is the command line as recorded in the documents.
int run_command(const Command& cmd, const std::vector<std::string>& argv);
int hunt_command(const Command& cmd, const std::vector<std::string>& argv);
int fabric_command(const Command& cmd, const std::vector<std::string>& argv);  // built without libfabric: says so, 1
int preflight_command(const Command& cmd, const std::vector<std::string>& argv);

// No MPI, one process.
int analyze_command(const Command& cmd);
int compare_command(const Command& cmd);
int derive_thresholds_command(const Command& cmd);
int launch_command(const Command& cmd);
int report_command(const Command& cmd);

}  // namespace collbench
