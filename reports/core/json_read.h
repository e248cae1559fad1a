// Reading results documents back: collbench's own (final or partial) into the result model.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench::report {

// Every reader here throws InputError (reports/core/json_input.h) naming the field, for a field of
// the wrong type, a placement or group scope this build does not know, or a whole number (bytes,
// ranks, ...) out of its field's range. Absent or null fields read as their default.
CaseResult case_from_json(const nlohmann::json& c);
std::vector<CaseResult> cases_from_json(const nlohmann::json& doc);
RunSpan span_from_json(const nlohmann::json& doc);
std::vector<NodeInfo> nodes_from_json(const nlohmann::json& doc);  // world.nodes[]: name, ranks

// Findings of any collbench document (run, hunt, fabric). A finding without "subject" (written
// before it existed) or with a kind this build does not know reads as a world subject.
Subject subject_from_json(const nlohmann::json& s);
Finding finding_from_json(const nlohmann::json& f);
std::vector<Finding> findings_from_json(const nlohmann::json& doc);

// What a printer of any collbench document (report's page and metrics) may count on, read with
// the readers above: its findings, and a run's world and cases, also in a preflight's phases.
void check_document(const nlohmann::json& doc);

// A FILE.partial journal (JSON lines) as a collbench.run/1 document with "complete": false.
// Throws InputError on a line that is not JSON, other than a last line cut short.
nlohmann::json document_from_partial(std::string_view text);

}  // namespace collbench::report
