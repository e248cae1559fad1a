// What a verdict did not judge, said as findings that count in Issues Found, so that a summary says
// HEALTHY only about what was judged; and values no measurement can produce, which make an input
// untrusted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/findings.h"
#include "reports/result.h"

namespace collbench::report {

// NO_LINK_CROSSED (WARN P2) for one rank: its "bandwidth" is a copy within its own memory.
std::optional<Finding> single_rank_finding(int ranks);

// INPUT_INCOMPLETE (WARN P2): the input ended before its sweep did; `why` says how that shows.
Finding incomplete_input_finding(const std::string& why);

// IMPLAUSIBLE_VALUES (WARN P1): a negative or non-finite time, algbw or busbw, or a #wrong below 0.
// The sizes are listed; the caller drops the [PASS] findings of such an input.
std::optional<Finding> implausible_values_finding(const std::vector<CaseResult>& cases);

// The findings without the [PASS] ones: what stays of a verdict on an input that is not trusted.
std::vector<Finding> without_passes(std::vector<Finding> findings);

}  // namespace collbench::report
