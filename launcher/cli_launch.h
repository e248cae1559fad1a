// The options of `collbench launch slurm` and `collbench launch k8s`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli.h"

namespace collbench {

// Declares `launch` and its subcommands on `app`; returns `launch` (slurm and k8s are its children).
CLI::App* add_launch_subcommand(CLI::App& app, Command& cmd, std::map<std::string, std::string>& raw);
// Checks what add_launch_subcommand collected, before anything is written: the wrapped collbench
// command parses and is one that measures, names are valid. Throws UsageError naming the option.
void finish_launch_options(Command& cmd, const CLI::App& launch, std::map<std::string, std::string>& raw);

}  // namespace collbench
