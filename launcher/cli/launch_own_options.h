// The options of `collbench launch slurm|k8s` for the user's own job: --command (run your program,
// not collbench) and --inspector DIR (the NCCL Inspector's variables, the logs in DIR/<job>).
#pragma once

#include <CLI/CLI.hpp>

#include "launcher/cli/command.h"

namespace collbench {

// Declares --command and the --inspector options on `sub` (slurm or k8s).
void add_own_job_options(CLI::App& sub, LaunchOptions& o, bool slurm);

// Checks them, before anything is written; throws UsageError naming the option. Sets the default
// job name from the program when --command is given.
void finish_own_job_options(LaunchOptions& o, const CLI::App& sub, bool slurm, bool container);

}  // namespace collbench
