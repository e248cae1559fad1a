// The run's JSON document (schema collbench.run/1), built with nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

nlohmann::json to_json(const RunHeader& header);
nlohmann::json to_json(const CaseArrival& a);  // rank, host and median_lateness_us null when nobody was late
nlohmann::json to_json(const CaseResult& c);
nlohmann::json to_json(const Subject& s);  // {"kind", "hosts", "ranks"}; world: empty lists
nlohmann::json to_json(const Finding& f);

// doc["findings"] and doc["verdict"] (issues_found, exit_code): the same in every document.
void add_verdict(nlohmann::json& doc, const std::vector<Finding>& findings, int exit_code);

nlohmann::json run_document(const RunHeader& header, const std::vector<CaseResult>& cases,
                            const std::vector<Finding>& findings, const RunOutcome& outcome);

}  // namespace collbench::report
