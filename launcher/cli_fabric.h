// The options of `collbench fabric`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli.h"

namespace collbench {

// Declares the fabric subcommand on `app`; values land in `o` or, when they need parsing, in `raw`.
CLI::App* add_fabric_subcommand(CLI::App& app, FabricOptions& o, std::map<std::string, std::string>& raw);
// Parses and checks what add_fabric_subcommand collected. Throws UsageError naming the option.
void finish_fabric_options(FabricOptions& o, std::map<std::string, std::string>& raw);

}  // namespace collbench
