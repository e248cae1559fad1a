#include "launcher/commands/command_line.h"

#include <fmt/format.h>

#include "bench/errors.h"
#include "launcher/inputs/known_issue_input.h"
#include "launcher/inputs/result_input.h"
#include "launcher/verdicts/verdicts.h"

namespace collbench {

Command parse_command_line(const std::vector<std::string>& args) {
  Command cmd = parse_options(args);
  check_inputs(cmd);
  return cmd;
}

void check_inputs(Command& cmd) {
  using Kind = Command::Kind;
  const Kind k = cmd.kind;
  // Not for `thresholds derive`, whose --instance-type names the profile it writes.
  if (k == Kind::Run || k == Kind::Fabric || k == Kind::Preflight || k == Kind::Analyze || k == Kind::Compare ||
      k == Kind::Report || (k == Kind::Launch && !cmd.verdict.instance_type.empty()))
    check_verdict_inputs(cmd.verdict);
  if (k == Kind::Run || k == Kind::Preflight || k == Kind::Analyze) known_issues_for(cmd.verdict);  // unusable: exit 2
  if (k == Kind::Run && !cmd.baseline.empty()) load_results_document(cmd.baseline);
  if (k != Kind::Launch || cmd.launch.target == "prolog" || cmd.launch.own_command) return;
  Command inner = parse_options(cmd.launch.command);  // parsed once already, by finish_launch_options
  try {
    check_inputs(inner);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("the command after --: {}", e.what()));
  }
}

}  // namespace collbench
