// What a sweep keeps while it runs, and how a measured case becomes a result: shared by the
// sweep phase and its watchdog.
#pragma once

#include <mutex>
#include <optional>
#include <vector>

#include "bench/sweep.h"
#include "launcher/phases/phase_frame.h"
#include "reports/core/case_summary.h"
#include "reports/core/findings.h"
#include "reports/core/journal.h"
#include "reports/core/json_report.h"
#include "reports/core/result.h"

namespace collbench {

// Rank 0's record of the run so far; the watchdog thread reads it when a case hangs.
struct Record : EarlyRecord {
  std::mutex mutex;
  report::RunHeader header;
  std::vector<report::CaseResult> cases;
  std::optional<report::Journal> journal;
  nlohmann::json counters;  // the EFA counters' deltas (efa_counters.h), once read after the sweep

  nlohmann::json document(const std::vector<report::Finding>& findings, const report::RunOutcome& outcome) {
    nlohmann::json doc = report::run_document(header, cases, findings, outcome);
    if (!counters.is_null()) doc["counters"] = counters;
    return doc;
  }
  void save(const std::vector<report::Finding>& findings, const report::RunOutcome& outcome) {
    if (journal) journal->finish(document(findings, outcome));
  }
  // EarlyRecord: the cases so far, for an early end (a hang, a stop signal).
  std::string progress() override;
  nlohmann::json document_so_far(const report::Finding& why, int exit_code) override;
  void save_early(const nlohmann::json& doc) override;
};

// What every group's result of this case shares; samples, checks and busbw factor are per group.
report::RawCase raw_case(const CaseMeasurement& m);

// SWEEP_BUDGET_SPENT: the sizes RunOptions::op_budget_s left out.
report::Finding sweep_budget_finding(const std::vector<SkippedSizes>& skipped, double op_budget_s);

}  // namespace collbench
