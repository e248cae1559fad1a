#include "launcher/commands/commands.h"
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bench/errors.h"
#include "bench/solo_control.h"
#include "launcher/commands/finish.h"
#include "launcher/inputs/result_input.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/run/compare.h"
#include "reports/core/summary.h"

namespace collbench {

int compare_command(const Command& cmd) {
  const auto base = load_results_document(cmd.compare.baseline);
  const auto cur = load_results_document(cmd.compare.current);
  const auto result = report::compare_runs(base, cur, cmd.compare.tolerance);
  if (result.cases.empty())
    throw UsageError(fmt::format("'{}' and '{}' have no case in common to compare ({}); compare runs of the same "
                                 "setup, or rerun the baseline with it",
                                 cmd.compare.baseline, cmd.compare.current,
                                 result.mismatches.empty() ? "no op, datatype and size in both"
                                                           : fmt::format("{}", fmt::join(result.mismatches, "; "))));
  const bool color = use_color(cmd.verdict.color);
  std::printf("# baseline %s\n# current  %s\n", cmd.compare.baseline.c_str(), cmd.compare.current.c_str());
  std::fputs(report::render_comparison(result).c_str(), stdout);
  SoloControl control;
  return finish(control, cmd.verdict, color, {result.findings, true, nullptr, std::nullopt});
}

}  // namespace collbench
