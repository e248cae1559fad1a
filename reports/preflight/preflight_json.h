// The preflight document (schema collbench.preflight/1): phases with their status and their own
// documents, every finding tagged with its phase, the verdict, how long it holds, and the scheduler
// hints.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/preflight/scheduler_hints.h"

namespace collbench::report {

inline constexpr const char* kPreflightSchema = "collbench.preflight/1";
inline constexpr const char* kPreflightPartialSchema = "collbench.preflight.partial/1";

struct PreflightPhase {
  std::string name;
  std::string status;  // ran, skipped, failed
  std::string reason;
  double budget_s = 0;  // its share when it started
  double wall_s = 0;
  std::vector<Finding> findings;
  nlohmann::json document;  // the phase's own (run, hunt or fabric) document; null when it did not run
};

struct PreflightRecord {
  std::string tool_version, started_at, finished_at, valid_until;
  std::vector<std::string> argv;
  double budget_s = 0, wall_s = 0;
  int ranks = 0;
  std::vector<std::string> hosts;  // nodes, in order of their lowest rank
  std::vector<PreflightPhase> phases;
};

// The findings of every phase, in phase order: what the verdict is taken on. A finding two phases
// both say word for word (THRESHOLDS_SKIPPED for an unknown instance type, from the node and the
// world sweep) is one issue, counted once; the document's own list keeps each with its phase.
std::vector<Finding> all_findings(const PreflightRecord& r);

nlohmann::json to_json(const PreflightPhase& p);
nlohmann::json preflight_document(const PreflightRecord& r, const std::vector<SchedulerHint>& hints, int exit_code);

}  // namespace collbench::report
