// The verdict options run, fabric, preflight, analyze and compare share: thresholds, instance
// type, what fails, colour.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "launcher/cli.h"

namespace collbench {

void add_verdict_options(CLI::App& app, VerdictOptions& v, std::map<std::string, std::string>& raw);
// --known-issues, on the commands that audit versions (run, preflight, analyze).
void add_known_issues_option(CLI::App& app, VerdictOptions& v);
// Checks and applies what add_verdict_options collected in `raw`. Throws UsageError.
void finish_verdict_options(VerdictOptions& v, std::map<std::string, std::string>& raw);

}  // namespace collbench
