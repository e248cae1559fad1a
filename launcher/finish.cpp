#include "launcher/finish.h"

#include <fmt/format.h>

#include <cstdio>

#include "bench/errors.h"
#include "launcher/agree.h"
#include "launcher/verdicts.h"
#include "reports/core/journal.h"
#include "reports/core/summary.h"
#include "reports/html/page.h"

namespace collbench {

std::string status_name(PhaseResult::Status s) {
  switch (s) {
    case PhaseResult::Status::Ran: return "ran";
    case PhaseResult::Status::Skipped: return "skipped";
    case PhaseResult::Status::Failed: return "failed";
  }
  return "ran";
}

PhaseResult skipped_phase(std::string reason) {
  PhaseResult p;
  p.status = PhaseResult::Status::Skipped;
  p.reason = std::move(reason);
  return p;
}

PhaseResult failed_phase(int exit_code, std::string reason) {
  PhaseResult p;
  p.status = PhaseResult::Status::Failed;
  p.exit_code = exit_code;
  p.reason = std::move(reason);
  return p;
}

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
