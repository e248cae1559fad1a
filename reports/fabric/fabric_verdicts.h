// Verdicts of `collbench fabric`: the provider against the instance profile (EFA expected, TCP
// landed on), the EFA devices each node shows, and straggler attribution (reports/pairs/attribution.h)
// of the pairs' latency and bandwidth.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/pairs/attribution.h"
#include "reports/fabric/fabric_result.h"
#include "reports/core/findings.h"
#include "reports/thresholds/thresholds.h"

namespace collbench::report {

struct NodeEfa {
  std::string node;
  int devices = 0;  // EFA devices under /sys/class/infiniband on that node
};

// FABRIC_PROVIDER (INFO), and with an instance profile: EFA_TCP_FALLBACK when the profile has EFA
// devices but the provider is an IP one (tcp, sockets, udp, net), EFA_PROVIDER_OK when it is efa,
// EFA_DEVICES_MISSING / EFA_DEVICES_OK from the device counts; UNKNOWN_INSTANCE without a profile.
// Always FABRIC_THRESHOLDS_NONE: no published per-instance fabric figure is known, so the pairs are
// judged against each other only.
std::vector<Finding> fabric_environment_findings(const FabricProvider& p, const std::string& instance_type,
                                                 const std::optional<HardwareProfile>& profile,
                                                 const std::vector<NodeEfa>& efa);

enum class FabricMeasure { Latency, Bandwidth };

// The samples attribution judges: per lane of each pair, the lower half of the means of 20 batches
// of the latency samples at run.latency_bytes, as rates (fabric_math.h), or both directions' per-iteration
// bandwidth at run.bandwidth_bytes.
std::vector<PairSample> fabric_pair_samples(const FabricRun& run, FabricMeasure m);

// Findings for one measure: FABRIC_SLOW_NODE_LATENCY / _BANDWIDTH, FABRIC_SLOW_LINK_LATENCY /
// _BANDWIDTH, FABRIC_WIDE_SLOWDOWN, FABRIC_INCONCLUSIVE or FABRIC_PAIRS_OK; values in µs for latency,
// GB/s for bandwidth.
std::vector<Finding> fabric_attribution_findings(const Attribution& a, const FabricRun& run, FabricMeasure m);

// The largest bandwidth size that every lane measured. A lane too slow for its time share skips its
// larger sizes (FabricLane::bandwidth_starved_at), and every pair is judged at one size, so the
// verdict comes down to that lane's last. 0: no lane measured bandwidth.
std::uint64_t common_bandwidth_bytes(const FabricRun& run);

// FABRIC_SIZES_SKIPPED (WARN P2) when any lane skipped sizes for lack of time: which lanes, from which
// size, and the size bandwidth is judged at when that is below `planned_bandwidth_bytes`.
std::optional<Finding> fabric_skipped_sizes_finding(const FabricRun& run, std::uint64_t planned_bandwidth_bytes);

// The rule the fabric verdicts use: the hunt's, with a wider relative floor for latency, whose
// small-message numbers on shared hosts swing more than bandwidth does.
AttributionOptions fabric_attribution_options(FabricMeasure m);

}  // namespace collbench::report
