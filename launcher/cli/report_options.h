// The options of `collbench report`.
#pragma once

#include <CLI/CLI.hpp>

#include "launcher/cli/command.h"

namespace collbench {

CLI::App* add_report_subcommand(CLI::App& app, Command& cmd);
// --html FILE on a measuring command: the page `collbench report -o` would make of its document.
void add_html_option(CLI::App& command, VerdictOptions& v);

// Checks what add_report_subcommand collected before anything is read or written: at least one
// output, outputs in folders that exist, not two outputs on standard output. Throws UsageError.
void finish_report_options(Command& cmd);

}  // namespace collbench
