#include "launcher/commands/finish.h"

#include <fmt/format.h>

#include <cstdio>

#include "bench/errors.h"
#include "launcher/job/agree.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/core/journal.h"
#include "reports/core/summary.h"
#include "reports/html/page.h"

namespace collbench {

int finish(Control& control, const VerdictOptions& verdict, bool color, const Ending& ending) {
  int code = kExitOk;
  if (control.rank() == 0) {
    if (ending.print_findings) std::fputs(report::render_findings(ending.findings, color).c_str(), stdout);
    std::fputs(report::render_summary(ending.findings, color).c_str(), stdout);
    std::fflush(stdout);
    code = ending.exit_code.value_or(report::exit_code_for(ending.findings, verdict.fail_on_warn));
    if (ending.save) {
      try {
        ending.save(ending.findings, code);
      } catch (const std::exception& e) {
        print_error(e.what(), 0);
        code = kExitCouldNotRun;
      }
    }
    if (!verdict.html.empty() && ending.document) {
      try {
        const nlohmann::json doc = ending.document(ending.findings, code);
        const std::string type = report::html::document_instance_type(doc);
        report::write_file_atomically(
            verdict.html, report::html::html_page({{verdict.html, doc, type.empty() ? std::nullopt
                                                                                    : thresholds_for(verdict, type)}},
                                                  "collbench " COLLBENCH_VERSION));
      } catch (const std::exception& e) {
        print_error(fmt::format("--html {}: {}", verdict.html, e.what()), 0);
        code = kExitCouldNotRun;
      }
    }
  }
  return static_cast<int>(-control.min(-code));
}

int finish_phase(Control& control, const VerdictOptions& verdict, bool color, PhaseResult phase) {
  switch (phase.status) {
    case PhaseResult::Status::Failed: return phase.exit_code;
    case PhaseResult::Status::Skipped:
      if (control.rank() == 0) print_error(phase.reason, 0);
      return kExitUsage;
    case PhaseResult::Status::Ran: break;
  }
  return finish(control, verdict, color,
                {std::move(phase.findings), true, std::move(phase.save), std::nullopt, std::move(phase.document)});
}

}  // namespace collbench
