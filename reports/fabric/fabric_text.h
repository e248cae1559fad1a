// The text of `collbench fabric`: '#' header lines (provider, layout, schedule), a latency and a
// bandwidth table (one row per pair, lane and size), and node x node matrices. Findings and the
// summary come from reports/core/summary.h.
#pragma once

#include <string>

#include "reports/pairs/attribution.h"
#include "reports/fabric/fabric_result.h"

namespace collbench::report {

std::string render_fabric_header(const FabricRun& run);
std::string render_latency_table(const FabricRun& run);
std::string render_bandwidth_table(const FabricRun& run);

// The attribution's matrix in the measure's unit: µs (from the latency rates) or GB/s; '-' on the
// diagonal and where unmeasured; units judged slow are marked '*'.
std::string render_fabric_matrix(const Attribution& a, const FabricRun& run, bool latency);

}  // namespace collbench::report
