#include "reports/preflight/preflight_json.h"

#include <algorithm>

#include "reports/core/json_report.h"
#include "reports/core/summary.h"

namespace collbench::report {

using nlohmann::json;

std::vector<Finding> all_findings(const PreflightRecord& r) {
  std::vector<Finding> out;
  for (const auto& p : r.phases)
    for (const auto& f : p.findings)
      if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
  return out;
}

json to_json(const PreflightPhase& p) {
  return {{"name", p.name},         {"status", p.status},       {"reason", p.reason.empty() ? json(nullptr) : json(p.reason)},
          {"budget_s", p.budget_s}, {"wall_s", p.wall_s},       {"findings", static_cast<int>(p.findings.size())},
          {"document", p.document}};
}

json preflight_document(const PreflightRecord& r, const std::vector<SchedulerHint>& hints, int exit_code) {
  json doc = {{"schema", kPreflightSchema}, {"tool_version", r.tool_version}, {"started_at", r.started_at},
              {"finished_at", r.finished_at}, {"valid_until", r.valid_until},  {"argv", r.argv},
              {"budget_s", r.budget_s},       {"wall_s", r.wall_s},            {"ranks", r.ranks},
              {"nodes", r.hosts}};
  json phases = json::array();
  json findings = json::array();
  for (const auto& p : r.phases) {
    phases.push_back(to_json(p));
    for (const auto& f : p.findings) {
      json j = to_json(f);
      j["phase"] = p.name;
      findings.push_back(std::move(j));
    }
  }
  doc["phases"] = std::move(phases);
  json hs = json::array();
  for (const auto& h : hints) hs.push_back(to_json(h));
  doc["scheduler_hints"] = std::move(hs);
  add_verdict(doc, all_findings(r), exit_code);
  doc["findings"] = std::move(findings);  // the same findings, each with its phase
  doc["verdict"]["go"] = exit_code == 0;
  return doc;
}

}  // namespace collbench::report
