// The command line parsed into a Command: options, their values and what combinations mean. It reads
// no file and judges no input file; launcher/commands/command_line.h does that before anything runs.
#pragma once

#include <string>
#include <vector>

#include "launcher/cli/command.h"

namespace collbench {

// Throws UsageError (exit 2) naming the option and the fix.
Command parse_options(const std::vector<std::string>& args);

// "10%" or "0.1" -> 0.1. Throws UsageError naming `option`.
double parse_fraction(const std::string& text, const std::string& option);

// "300", "90s", "5m", "1.5h" -> seconds (> 0). Throws UsageError naming `option`.
double parse_duration(const std::string& text, const std::string& option);

}  // namespace collbench
