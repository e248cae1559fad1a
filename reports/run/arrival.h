// Which rank reaches a collective last: per case from each iteration's start times on a common
// clock, and across cases as LATE_RANK. A rank that arrives late makes every other rank wait inside
// the collective, so its cause (a busy CPU, a noisy neighbour, a slow host-side copy) shows as low
// bandwidth everywhere while the rank itself looks fast.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

// One case's arrivals, for a group of ranks. An iteration is late for the rank that arrived last
// when it came after the median of the others by more than the clock error (both ranks' offset
// error bounds) and by more than kLateShareFloor of the typical iteration time: ranks leave a
// collective in an order of the algorithm's own, which on a fast network puts a rank a few
// microseconds behind every time and is no one's fault.
// arrival_s: [group-local rank][iteration] on one clock; error_s: per group-local rank; ranks and
// hosts: the global rank and host of each. nullopt with fewer than two ranks or no iterations.
std::optional<CaseArrival> summarize_arrival(const std::vector<std::vector<double>>& arrival_s,
                                             const std::vector<double>& error_s, const std::vector<int>& ranks,
                                             const std::vector<std::string>& hosts);

inline constexpr double kLateShareFloor = 0.25;
// A case names its late rank (the one the others waited for longest, summed over the late
// iterations) when that rank accounts for more than this share of all the waiting, in at least
// kMinLateIterations iterations. Time, not a count: on a healthy host two ranks sharing a core put
// one of them last by a few microseconds in nearly every iteration, while a rank whose core a CPU
// hog takes is last in a few iterations, each by a scheduler time slice (milliseconds).
inline constexpr double kLateMajority = 0.5;
inline constexpr std::size_t kMinLateIterations = 3;
// ... and when that waiting is at least this share of the timed loop: a rank that costs the others
// less is not worth a finding (scheduler noise on a healthy host at small sizes reaches a few %).
inline constexpr double kMinWaitFraction = 0.10;

// Whether the case's arrivals name a late rank (the rules above).
bool names_late_rank(const CaseArrival& a);

// LATE_RANK (WARN P1) for the rank that more than kCaseMajority of the cases naming a late rank
// name, when at least kMinLateCases do; the message has its host, its share of the waiting, how
// often it was late and by how much. ARRIVALS_EVEN (PASS) when arrivals were measured and no rank
// qualifies; nothing when no case has arrivals (backends that do not record them: the nccl backend).
// `oversubscribed` (reports/core/oversubscription.h): the run's ranks took turns on the CPUs, so
// such a rank is LATE_RANK_INCONCLUSIVE (INFO), never P1.
std::vector<Finding> late_rank_findings(const std::vector<CaseResult>& cases,
                                        const std::optional<std::string>& oversubscribed = std::nullopt);
inline constexpr std::size_t kMinLateCases = 2;
inline constexpr double kCaseMajority = 2.0 / 3.0;

}  // namespace collbench::report
