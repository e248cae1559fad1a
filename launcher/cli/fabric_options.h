// The options of `collbench fabric`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli/command.h"

namespace collbench {

// The text of the fabric options that need parsing, as given (-b, --bandwidth-min, --budget, -e,
// --inject, --latency-max); empty when absent. Parsed by the finish step.
struct FabricText {
  std::string b;
  std::string bandwidth_min;
  std::string budget;
  std::string e;
  std::string inject;
  std::string latency_max;
};

// Declares the fabric subcommand on `app`; values land in `o` or, when they need parsing, in `raw`.
CLI::App* add_fabric_subcommand(CLI::App& app, FabricOptions& o, FabricText& raw);
// Parses and checks what add_fabric_subcommand collected. Throws UsageError naming the option.
void finish_fabric_options(FabricOptions& o, FabricText& raw);

}  // namespace collbench
