// The command line: subcommands and their options, parsed once into value types.
#pragma once

#include <string>
#include <vector>

#include "bench/options.h"

namespace collbench {

struct Command {
  enum class Kind { Run, Help, Version } kind = Kind::Help;
  RunOptions run;
  std::string text;  // help or version text to print
};

// Throws UsageError (exit 2) naming the option and the fix.
Command parse_command_line(const std::vector<std::string>& args);

}  // namespace collbench
