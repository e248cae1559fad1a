// The command line as every command receives it: parsed (launcher/cli/parse.h), then the input files
// it names checked, so that bad input is exit 2 before anything is measured or written.
#pragma once

#include <string>
#include <vector>

#include "launcher/cli/command.h"
#include "launcher/cli/parse.h"

namespace collbench {

// parse_options, then check_inputs. Throws UsageError (exit 2) naming the option or file and the fix.
Command parse_command_line(const std::vector<std::string>& args);

// The thresholds, instance type, known-issues list and baseline the command names: each must be
// usable. Lower-cases the instance type. For `launch`, the wrapped command's inputs too.
void check_inputs(Command& cmd);

}  // namespace collbench
