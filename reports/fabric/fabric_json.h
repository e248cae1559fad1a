// The JSON document of `collbench fabric` (schema "collbench.fabric/1"; fields in docs/fabric.md).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "reports/pairs/attribution.h"
#include "reports/fabric/fabric_result.h"
#include "reports/core/findings.h"

namespace collbench::report {

inline constexpr const char* kFabricSchema = "collbench.fabric/1";

// `latency` / `bandwidth`: the attributions of the two measures, when measured.
nlohmann::json fabric_document(const FabricRun& run, const Attribution* latency, const Attribution* bandwidth,
                               const std::vector<Finding>& findings, int exit_code);

}  // namespace collbench::report
