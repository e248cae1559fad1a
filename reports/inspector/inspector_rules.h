// Verdicts on a job's NCCL Inspector logs (reports/inspector/inspector_job.h), in the finding
// scheme: the rank the others wait for (LATE_RANK), the host whose communicators run slow against
// their peers (STRAGGLER_NODE), the process whose collectives stop while the job's go on
// (COLLECTIVES_STOPPED), and INSPECTOR_HEALTHY when none fires on enough data. Every message says
// how many collectives, ranks and minutes it rests on; too few for a rule is INFO, never FAIL.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/inspector/inspector_job.h"

namespace collbench::report::inspector {

// A communicator is judged for a late rank from this many joined collectives on.
inline constexpr std::uint64_t kMinJoined = 20;
// A (communicator, collective, size) series is compared with its peers from this many on, when at
// least kMinPeers communicators of the same shape (collective, size, ranks, nodes) have one; it is
// slow at kSlowShare below the peers' median and beyond kSlowMads scaled MADs of them, as hunt's
// STRAGGLER_NODE.
inline constexpr std::size_t kMinSeries = 10;
inline constexpr std::size_t kMinPeers = 3;
inline constexpr double kSlowShare = 0.10;
inline constexpr double kSlowMads = 3.0;
// A process has stopped when its last record is this far behind the job's last one, and more than
// kStopIntervals of its own typical gap between records.
inline constexpr double kStopMinUs = 60e6;
inline constexpr double kStopIntervals = 20;

std::vector<Finding> late_rank_findings(const Job& job);
std::vector<Finding> slow_node_findings(const Job& job);
std::vector<Finding> stopped_findings(const Job& job);
// All of the above, the notes on the input (files still being written, ranks never seen), and
// INSPECTOR_HEALTHY when nothing is wrong and every rule had enough to go on.
std::vector<Finding> inspector_findings(const Job& job);

// "<N> records from <P> processes on <H> hosts, <C> communicators, <J> joined collectives, <M> minutes"
std::string job_summary(const Job& job);
// The document analyze --json writes (schema collbench.inspector/1, findings added by the caller).
nlohmann::json job_document(const Job& job);

}  // namespace collbench::report::inspector
