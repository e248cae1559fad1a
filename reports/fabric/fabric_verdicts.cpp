#include "reports/fabric/fabric_verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "common/short_list.h"
#include "reports/fabric/fabric_math.h"
#include "reports/pairs/pair_findings.h"
#include "reports/core/references.h"
#include "reports/core/text_table.h"

namespace collbench::report {
namespace {

constexpr std::size_t kListed = 5;
// Latency is judged on the lower half of the means of this many batches of each lane's iterations
// (fabric_math.h).
constexpr std::size_t kLatencyBatches = 20;

std::string name_of(const FabricRun& run, int unit) {
  return static_cast<std::size_t>(unit) < run.units.size() ? run.units[unit].name : fmt::format("n{}", unit);
}

}  // namespace

std::vector<Finding> fabric_environment_findings(const FabricProvider& p, const std::string& instance_type,
                                                 const std::optional<HardwareProfile>& profile,
                                                 const std::vector<NodeEfa>& efa) {
  std::vector<Finding> out;
  out.push_back({"FABRIC_PROVIDER", Tag::Info, Priority::None,
                 fmt::format("provider {}, fabric {}, domain {}, libfabric {}, {} messages{}; {}", p.name, p.fabric,
                             p.domain, p.libfabric, p.messaging, p.mr_local ? ", local memory registration" : "",
                             p.reason),
                 ""});
  const std::string type = instance_type.empty() ? "unknown" : instance_type;
  if (!profile) {
    out.push_back({"UNKNOWN_INSTANCE", Tag::Info, Priority::None,
                   fmt::format("instance type {} has no profile in thresholds/: whether EFA is expected is unknown, so "
                               "the provider and EFA device checks were skipped (pass --instance-type)",
                               type),
                   ""});
  } else if (profile->efa_devices > 0) {
    if (p.over_ip)
      out.push_back({"EFA_TCP_FALLBACK", Tag::Fail, Priority::P0,
                     fmt::format("{} has {} EFA devices, but libfabric ran on {} ({}): these numbers are the kernel "
                                 "TCP/IP path's, not EFA's; check the EFA installer, FI_PROVIDER and the device count",
                                 type, profile->efa_devices, p.name, p.reason),
                     ref::kTcpFallback});
    else if (p.core == "efa")
      out.push_back({"EFA_PROVIDER_OK", Tag::Pass, Priority::None,
                     fmt::format("libfabric ran on {} as {} expects", p.name, type), ""});
    std::vector<std::string> short_nodes;
    for (const auto& n : efa)
      if (n.devices < profile->efa_devices) short_nodes.push_back(fmt::format("{} ({})", n.node, n.devices));
    if (!short_nodes.empty()) {
      out.push_back({"EFA_DEVICES_MISSING", Tag::Fail, Priority::P0,
                     fmt::format("{} of {} nodes show fewer EFA devices under /sys/class/infiniband than the {} "
                                 "profile's {}: {}",
                                 short_nodes.size(), efa.size(), type, profile->efa_devices,
                                 short_list(short_nodes, kListed, ", ")),
                     ref::kEfaConfig});
    } else {
      out.push_back({"EFA_DEVICES_OK", Tag::Pass, Priority::None,
                     fmt::format("every node shows the {} EFA devices of {}", profile->efa_devices, type), ""});
    }
  } else {
    out.push_back({"FABRIC_PROVIDER", Tag::Info, Priority::None,
                   fmt::format("{} has no EFA devices in its profile; any provider is as expected", type), ""});
  }
  out.push_back({"FABRIC_THRESHOLDS_NONE", Tag::Info, Priority::None,
                 "no published libfabric latency or bandwidth figure per instance type is known to collbench, so "
                 "thresholds/ has no fabric rows; the pairs were judged against each other only",
                 ""});
  return out;
}

std::vector<PairSample> fabric_pair_samples(const FabricRun& run, FabricMeasure m) {
  std::vector<PairSample> out;
  for (const auto& pair : run.pairs)
    for (const auto& lane : pair.lanes) {
      PairSample s{pair.a, pair.b, pair.round, {}, run.main_rounds >= 0 && pair.round >= run.main_rounds};
      if (m == FabricMeasure::Latency) {
        for (const auto& p : lane.latency)
          if (p.bytes == run.latency_bytes) s.rates = latency_rates(lower_batch_means(p.samples_us, kLatencyBatches));
      } else {
        for (const auto& p : lane.bandwidth)
          if (p.bytes == run.bandwidth_bytes) s.rates = p.uni_gbs;
      }
      if (!s.rates.empty()) out.push_back(std::move(s));
    }
  return out;
}

std::uint64_t common_bandwidth_bytes(const FabricRun& run) {
  std::uint64_t common = 0;
  bool any = false;
  for (const auto& pair : run.pairs)
    for (const auto& lane : pair.lanes) {
      std::uint64_t largest = 0;
      for (const auto& p : lane.bandwidth)
        if (!p.uni_gbs.empty()) largest = std::max(largest, p.bytes);
      if (largest == 0) continue;
      common = any ? std::min(common, largest) : largest;
      any = true;
    }
  return common;
}

std::optional<Finding> fabric_skipped_sizes_finding(const FabricRun& run, std::uint64_t planned_bandwidth_bytes) {
  std::vector<std::string> lanes;
  for (const auto& pair : run.pairs)
    for (const auto& lane : pair.lanes) {
      std::vector<std::string> kinds;
      if (lane.latency_starved_at) kinds.push_back(fmt::format("latency after {}", size_text(lane.latency_starved_at)));
      if (lane.bandwidth_starved_at)
        kinds.push_back(fmt::format("bandwidth after {}", size_text(lane.bandwidth_starved_at)));
      if (!kinds.empty())
        lanes.push_back(fmt::format("{}<->{}{} ({})", name_of(run, pair.a), name_of(run, pair.b),
                                    run.per_rank || pair.lanes.size() == 1 ? "" : fmt::format(" lane {}", lane.lane),
                                    fmt::join(kinds, ", ")));
    }
  if (lanes.empty()) return std::nullopt;
  std::string judged;
  if (run.bandwidth_bytes && run.bandwidth_bytes < planned_bandwidth_bytes)
    judged = fmt::format("; bandwidth is judged at {} instead of {}, the largest size every lane measured",
                         size_text(run.bandwidth_bytes), size_text(planned_bandwidth_bytes));
  return Finding{"FABRIC_SIZES_SKIPPED", Tag::Warn, Priority::P2,
                 fmt::format("{} lane(s) ran out of their share of the budget before a measurement's warm-up and "
                             "minimum samples, and skipped the larger sizes: {}{}; a rerun with a larger --budget or a "
                             "smaller -e measures them",
                             lanes.size(), short_list(lanes, kListed, "; "), judged),
                 ref::kPairwise};
}

AttributionOptions fabric_attribution_options(FabricMeasure m) {
  AttributionOptions o;
  // Rates are 1/latency: a drop of 0.5 is twice the median latency. Small-message timing on shared
  // hosts swings by 1.5x between healthy pairs of one run (seen on the fake cluster).
  if (m == FabricMeasure::Latency) o.min_drop = 0.50;
  return o;
}

std::vector<Finding> fabric_attribution_findings(const Attribution& a, const FabricRun& run, FabricMeasure m) {
  // A unit is a node, or on a one-node run a rank of it.
  PairUnits units;
  for (const auto& u : run.units) {
    units.names.push_back(u.name);
    units.ranks.push_back(u.ranks);
  }
  if (run.per_rank) units.host = run.nodes.empty() ? "localhost" : run.nodes.front().name;
  const bool latency = m == FabricMeasure::Latency;
  PairWords w;
  w.what = latency ? fmt::format("one-way latency at {}", size_text(run.latency_bytes))
                   : fmt::format("unidirectional bandwidth at {}", size_text(run.bandwidth_bytes));
  w.scale = latency ? PairScale::Latency : PairScale::Bandwidth;
  w.slow_node_code = latency ? "FABRIC_SLOW_NODE_LATENCY" : "FABRIC_SLOW_NODE_BANDWIDTH";
  w.slow_link_code = latency ? "FABRIC_SLOW_LINK_LATENCY" : "FABRIC_SLOW_LINK_BANDWIDTH";
  w.inconclusive_code = "FABRIC_INCONCLUSIVE";
  w.pass_code = "FABRIC_PAIRS_OK";
  w.one_pair_code = "FABRIC_ONE_PAIR";
  w.node_advice = "check this host's NIC and provider settings";
  w.drain_reason = "collbench fabric: slow";
  w.wide_reference = ref::kPairwise;
  w.more_samples = "-n, --bw-iters";
  w.one_pair_hint = run.per_rank ? "the pair's own figures in the tables above; with a third rank, a slow rank or "
                                   "link is named"
                                 : "the pair's own figures in the tables above; with a third node (or on one node, "
                                   "whose ranks pair with each other), a slow node or link is named";
  return pair_findings(a, units, w);
}

}  // namespace collbench::report
