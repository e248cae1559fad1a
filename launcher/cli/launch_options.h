// The options of `collbench launch slurm`, `launch k8s` and `launch prolog`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli/command.h"

namespace collbench {

// Declares `launch` and its subcommands on `app`; returns `launch` (slurm, k8s and prolog are its children).
CLI::App* add_launch_subcommand(CLI::App& app, Command& cmd);
// Checks what add_launch_subcommand collected, before anything is written: the wrapped collbench
// command parses and is one that measures, names are valid. Throws UsageError naming the option.
void finish_launch_options(Command& cmd, const CLI::App& launch);

}  // namespace collbench
