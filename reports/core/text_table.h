// The nccl-tests-compatible text output. Pure functions from results to text: the same header
// lines, columns and footers as nccl-tests, so its parsers read collbench output unchanged. One
// table per collective, each with its own header and footers.
#pragma once

#include "common/units.h"

#include <span>
#include <string>
#include <string_view>

#include "reports/core/result.h"

namespace collbench::report {

// The run's world (ranks, nodes, backend, versions), nccl-tests' parameter line and device list.
std::string render_preamble(const RunHeader& header);
std::string render_table_header(std::string_view op);
// One row: out-of-place and in-place results of the same size; either may be null (printed N/A).
std::string render_row(const CaseResult* out_of_place, const CaseResult* in_place);
// "# Out of bounds values" and "# Avg bus bandwidth" over the table's cases.
std::string render_table_footer(std::span<const CaseResult> cases);

// nccl-tests' time column: 2 decimals under 100 us, 1 under 10 ms, none above.
std::string format_time_us(double us);
// "0-3,8,10-11"
std::string format_ranks(std::span<const int> ranks);

}  // namespace collbench::report
