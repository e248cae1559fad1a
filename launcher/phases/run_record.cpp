#include "launcher/phases/run_record.h"

#include <fmt/format.h>

#include "bench/dtype.h"
#include "reports/core/references.h"
#include "reports/core/text_table.h"

namespace collbench {

std::string Record::progress() {
  std::lock_guard lock(mutex);
  return stopped_progress(cases.size(), "case result", journal.has_value());
}

nlohmann::json Record::document_so_far(const report::Finding& why, int exit_code) {
  std::lock_guard lock(mutex);
  return document({why}, {false, why.message, 0, exit_code});
}

void Record::save_early(const nlohmann::json& doc) {
  std::lock_guard lock(mutex);
  if (journal) journal->finish(doc, false);
}

report::RawCase raw_case(const CaseMeasurement& m) {
  const CaseRow& row = *m.row;
  const auto& info = collective_info(row.coll);
  report::RawCase raw;
  raw.op = std::string(info.name);
  raw.dtype = std::string(dtype_info(row.dtype).name);
  raw.redop = info.reduces ? std::string(redop_name(row.redop)) : "none";
  raw.placement = m.placement;
  raw.root = row.root;
  raw.bytes = row.bytes;
  raw.count = row.counts.param;
  raw.requested_bytes = row.requested_bytes;
  raw.stop_reason = stop_reason_name(m.stop);
  raw.cpu_wait_share = m.cpu_wait_share;
  return raw;
}

report::Finding sweep_budget_finding(const std::vector<SkippedSizes>& skipped, double op_budget_s) {
  std::string what;
  for (const auto& s : skipped)
    what += fmt::format("{}{} from {} ({} case(s))", what.empty() ? "" : "; ", collective_info(s.coll).name,
                        size_text(s.first_bytes), s.cases);
  return {"SWEEP_BUDGET_SPENT", report::Tag::Warn, report::Priority::P2,
          fmt::format("each op's share of the budget ({:.0f} s) ran out before these sizes: {}; the verdicts use the "
                      "sizes measured; give a larger --budget to reach them",
                      op_budget_s, what),
          report::ref::kMultiNode, report::Subject::world()};
}

}  // namespace collbench
