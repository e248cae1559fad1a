#include "launcher/commands.h"
#include "launcher/run_json.h"
#include "launcher/verdicts.h"
#include "reports/compare.h"
#include "reports/summary.h"

namespace collbench {

int compare_command(const Command& cmd) {
  const auto base = read_run_json(cmd.compare.baseline);
  const auto cur = read_run_json(cmd.compare.current);
  const auto result = report::compare_runs(base, cur, cmd.compare.tolerance);
  const bool color = use_color(cmd.verdict.color);
  std::printf("# baseline %s\n# current  %s\n", cmd.compare.baseline.c_str(), cmd.compare.current.c_str());
  std::fputs(report::render_comparison(result).c_str(), stdout);
  std::fputs(report::render_findings(result.findings, color).c_str(), stdout);
  std::fputs(report::render_summary(result.findings, color).c_str(), stdout);
  return report::exit_code_for(result.findings, cmd.verdict.fail_on_warn);
}

}  // namespace collbench
