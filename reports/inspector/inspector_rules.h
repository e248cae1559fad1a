// Verdicts on a job's NCCL Inspector logs (reports/inspector/inspector_job.h), in the finding
// scheme: the rank the others wait for (LATE_RANK), the host whose communicators run slow against
// their peers (STRAGGLER_NODE), the pair of hosts whose shared communicators run slow while neither
// is slow in its others (SLOW_LINK), the process whose collectives stop while the job's go on
// (COLLECTIVES_STOPPED), bandwidth that fell over the job (BUSBW_DRIFT), the world communicator's
// busbw against the instance type's thresholds, and INSPECTOR_HEALTHY when none fires on enough data. Every message says
// how many collectives, ranks and minutes it rests on; too few for a rule is INFO, never FAIL.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/inspector/inspector_job.h"
#include "reports/thresholds/thresholds.h"

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

// Drift: a (communicator, collective, size) series of `min_samples` joined collectives or more,
// over `min_us` or more, is cut into `windows` windows of as many collectives each (in the order they
// completed, which is coll_sn order). It drifted when the best of its last `edge` windows' medians
// is more than `floor` below the median of its first `edge` windows' medians, and that drop is more
// than `noise` times the largest distance of an early window's median from theirs (the noise the job
// showed while it was healthy).
struct DriftLimits {
  std::size_t windows = 10, edge = 3, min_samples = 40;
  double min_us = 120e6, floor = 0.10, noise = 3.0;
};
inline constexpr DriftLimits kDrift{};

// One (communicator, collective, size) series against the communicators of its shape (collective,
// size, ranks, nodes): the per-size medians the slow-node and slow-link rules share.
struct PeerEntry {
  std::size_t comm = 0;
  std::string coll;
  std::uint64_t bytes = 0;
  double median_gbs = 0;  // this series' median busbw
  double peers_gbs = 0;   // the median of its shape's series medians
  std::size_t peers = 0;  // series of its shape
  bool slow = false;      // kSlowShare below peers_gbs and beyond kSlowMads scaled MADs of them
  std::string what;       // the evidence, for a message
};
struct PeerComparison {
  std::vector<PeerEntry> entries;  // of shapes with kMinPeers series or more
  std::size_t shapes = 0;          // such shapes
};
PeerComparison compare_peers(const Job& job);

// The rank LATE_RANK names in a communicator (late in most of its joined collectives, the others
// waiting a real part of their time), or -1.
int late_rank_of(const Comm& c);
std::vector<Finding> late_rank_findings(const Job& job);
std::vector<Finding> slow_node_findings(const Job& job);
std::vector<Finding> slow_node_findings(const Job& job, const PeerComparison& peers);
// SLOW_LINK: a slow series of a communicator on exactly two hosts, when each host has a
// communicator across nodes without the other that is not slow, and none without the other that is.
std::vector<Finding> slow_link_findings(const Job& job, const PeerComparison& peers);
std::vector<Finding> stopped_findings(const Job& job);
std::vector<Finding> drift_findings(const Job& job);
// The communicator that spans every rank on more than one node, its AllReduce busbw per size (the
// median over its joined collectives) judged as judge_thresholds judges nccl-tests results, for
// the thresholds' all_reduce rows that apply to its node count and whose size it reached; INFO
// (THRESHOLDS_SKIPPED) saying why when nothing could be judged.
std::vector<Finding> job_threshold_findings(const Job& job, const std::optional<InstanceThresholds>& thresholds);
// All of the above, the notes on the input (files still being written, ranks never seen), and
// INSPECTOR_HEALTHY when nothing is wrong and every rule had enough to go on. Without thresholds
// the whole-job bandwidth is not judged, which one INFO says.
std::vector<Finding> inspector_findings(const Job& job,
                                        const std::optional<InstanceThresholds>& thresholds = std::nullopt);

// "<N> records from <P> processes on <H> hosts, <C> communicators, <J> joined collectives, <M> minutes"
std::string job_summary(const Job& job);
// The document analyze --json writes (schema collbench.inspector/1, findings added by the caller).
nlohmann::json job_document(const Job& job);

}  // namespace collbench::report::inspector
