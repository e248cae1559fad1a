// The options of `collbench preflight`.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli/command.h"

namespace collbench {

// The text of the preflight options that need parsing, as given (--backend, --budget, -e, --no-
// progress, --skip, --timeout, --valid-for); empty when absent. Parsed by the finish step.
struct PreflightText {
  std::string backend;
  std::string budget;
  std::string e;
  std::string no_progress;
  std::string skip;
  std::string timeout;
  std::string valid_for;
};

// Declares the preflight subcommand on `app`; values land in `cmd` or, when they need parsing, in
// `raw`. The verdict options are added by the caller.
CLI::App* add_preflight_subcommand(CLI::App& app, Command& cmd, PreflightText& raw);
// Parses and checks what add_preflight_subcommand collected. Throws UsageError naming the option.
void finish_preflight_options(Command& cmd, PreflightText& raw);

}  // namespace collbench
