// The verdict options run, fabric, preflight, analyze and compare share: thresholds, instance
// type, what fails, colour.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli/command.h"

namespace collbench {

// The text of --fail-on and --no-color, as given (--fail-on, --no-color); empty when absent. Parsed by
// the finish step.
struct VerdictText {
  std::string fail_on;
  std::string no_color;
};

void add_verdict_options(CLI::App& app, VerdictOptions& v, VerdictText& raw);
// --known-issues, on the commands that audit versions (run, preflight, analyze).
void add_known_issues_option(CLI::App& app, VerdictOptions& v);
// Checks and applies what add_verdict_options collected in `raw`. Throws UsageError.
void finish_verdict_options(VerdictOptions& v, VerdictText& raw);

}  // namespace collbench
