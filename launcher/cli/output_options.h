// Output files named on the command line, checked when it is parsed: a run that would measure for
// minutes and then fail to write its results is refused before it starts.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace collbench {

// Not a folder, in a folder that exists and can be written. Throws UsageError naming `flag`.
void check_output_file(const std::string& flag, const std::string& path);

// Every output option `command` was given (--json, -o/--output, --html, --prom, --emf): a file
// name, not '' ("-" where it means standard output), then check_output_file.
void check_output_options(const CLI::App& command);

}  // namespace collbench
