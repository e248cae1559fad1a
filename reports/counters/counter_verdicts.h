// What EFA counter deltas say about a phase: EFA_ERRORS_ROSE per node whose error counters rose,
// EFA_COUNTERS_OK when devices were read and none did, nothing when no node has an EFA device; and
// the link between those counters and a bandwidth finding that names the same host.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "reports/core/findings.h"
#include "reports/counters/efa_counters.h"

namespace collbench::report {

// The findings of one phase's counters; `during` names the phase in messages ("the sweep").
std::vector<Finding> counter_findings(const CounterReport& report, std::string_view during);

// For each host whose error counters rose and that a bandwidth finding in `findings` names
// (STRAGGLER_NODE, SLOW_LINK, BUSBW_BELOW_THRESHOLD of a node, ...): appends the counters to that
// finding's message, and the finding's code to the host's EFA_ERRORS_ROSE message.
void link_counter_evidence(std::vector<Finding>& findings, const CounterReport& report);

// Both of the above: the counter findings appended to `findings`, then linked.
void add_counter_findings(std::vector<Finding>& findings, const CounterReport& report, std::string_view during);

// The codes whose subject names a slow host or link, which counter evidence may explain.
bool is_bandwidth_code(std::string_view code);

}  // namespace collbench::report
