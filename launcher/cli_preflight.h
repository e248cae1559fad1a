// The options of `collbench preflight`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli.h"

namespace collbench {

// Declares the preflight subcommand on `app`; values land in `cmd` or, when they need parsing, in
// `raw`. The verdict options are added by the caller.
CLI::App* add_preflight_subcommand(CLI::App& app, Command& cmd, std::map<std::string, std::string>& raw);
// Parses and checks what add_preflight_subcommand collected. Throws UsageError naming the option.
void finish_preflight_options(Command& cmd, std::map<std::string, std::string>& raw);

}  // namespace collbench
