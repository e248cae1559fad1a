// Reading results documents back: collbench's own (final or partial) into the result model.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "reports/result.h"
#include "reports/threshold_verdicts.h"

namespace collbench::report {

CaseResult case_from_json(const nlohmann::json& c);
std::vector<CaseResult> cases_from_json(const nlohmann::json& doc);
RunSpan span_from_json(const nlohmann::json& doc);

// A FILE.partial journal (JSON lines) as a collbench.run/1 document with "complete": false.
// Throws std::runtime_error on a line that is not JSON.
nlohmann::json document_from_partial(std::string_view text);

}  // namespace collbench::report
