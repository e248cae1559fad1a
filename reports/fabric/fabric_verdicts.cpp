#include "reports/fabric/fabric_verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "reports/fabric/fabric_math.h"
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

// A judged value in the measure's own unit: latency comes back from its rate.
std::string value_text(FabricMeasure m, double v) {
  if (m == FabricMeasure::Latency) return fmt::format("{:.1f} us", v > 0 ? 1000.0 / v : 0.0);
  return fmt::format("{:.3f} GB/s", v);
}

// How much worse than the reference: latency "+240% latency", bandwidth "-35%".
std::string worse_text(FabricMeasure m, double drop) {
  if (m == FabricMeasure::Latency)
    return fmt::format("{:.0f}% above", drop < 1 ? 100 * (1 / (1 - drop) - 1) : INFINITY);
  return fmt::format("{:.0f}% below", 100 * drop);
}

std::string what_text(const FabricRun& run, FabricMeasure m) {
  return m == FabricMeasure::Latency ? fmt::format("one-way latency at {}", size_text(run.latency_bytes))
                                     : fmt::format("unidirectional bandwidth at {}", size_text(run.bandwidth_bytes));
}

const char* suffix(FabricMeasure m) { return m == FabricMeasure::Latency ? "LATENCY" : "BANDWIDTH"; }

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
      std::vector<std::string> listed(short_nodes.begin(),
                                      short_nodes.begin() + static_cast<std::ptrdiff_t>(std::min(short_nodes.size(), kListed)));
      out.push_back({"EFA_DEVICES_MISSING", Tag::Fail, Priority::P0,
                     fmt::format("{} of {} nodes show fewer EFA devices under /sys/class/infiniband than the {} "
                                 "profile's {}: {}{}",
                                 short_nodes.size(), efa.size(), type, profile->efa_devices, fmt::join(listed, ", "),
                                 short_nodes.size() > kListed ? fmt::format(" and {} more", short_nodes.size() - kListed)
                                                              : ""),
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
  const std::size_t shown = std::min(lanes.size(), kListed);
  std::string judged;
  if (run.bandwidth_bytes && run.bandwidth_bytes < planned_bandwidth_bytes)
    judged = fmt::format("; bandwidth is judged at {} instead of {}, the largest size every lane measured",
                         size_text(run.bandwidth_bytes), size_text(planned_bandwidth_bytes));
  return Finding{"FABRIC_SIZES_SKIPPED", Tag::Warn, Priority::P2,
                 fmt::format("{} lane(s) ran out of their share of the budget before a measurement's warm-up and "
                             "minimum samples, and skipped the larger sizes: {}{}{}; a rerun with a larger --budget or a "
                             "smaller -e measures them",
                             lanes.size(), fmt::join(lanes.begin(), lanes.begin() + static_cast<std::ptrdiff_t>(shown), "; "),
                             lanes.size() > shown ? fmt::format(" and {} more", lanes.size() - shown) : "", judged),
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
  auto unit_subject = [&](int u) {
    const auto& unit = run.units.at(static_cast<std::size_t>(u));
    if (!run.per_rank || unit.ranks.size() != 1) return Subject::node(unit.name, unit.ranks);
    const std::string node = run.nodes.empty() ? unit.name : run.nodes.front().name;
    return Subject::rank(unit.ranks.front(), node);
  };
  std::vector<Finding> out;
  const std::string what = what_text(run, m);
  const std::string ref_value = value_text(m, a.cluster_median);
  int stragglers = 0;
  std::vector<std::string> doubts;
  for (const auto& nv : a.nodes) {
    if (nv.kind == NodeVerdict::Kind::Inconclusive)
      doubts.push_back(fmt::format("{}{}: {}", name_of(run, nv.node),
                                   std::isnan(nv.score) ? "" : " " + value_text(m, nv.score), nv.reason));
    if (nv.kind != NodeVerdict::Kind::Straggler) continue;
    ++stragglers;
    std::string partners;
    for (const auto& [u, v] : nv.worst_partners)
      partners += fmt::format("{}{} {}", partners.empty() ? "" : ", ", name_of(run, u), value_text(m, v));
    const std::string host = name_of(run, nv.node);
    out.push_back({fmt::format("FABRIC_SLOW_NODE_{}", suffix(m)), Tag::Fail, Priority::P1,
                   fmt::format("{}: {} {} (median over its partners), {} the cluster median {}; worst partners: {}; "
                               "check this host's NIC and provider settings{}",
                               host, what, value_text(m, nv.score), worse_text(m, nv.drop), ref_value, partners,
                               run.per_rank ? ""
                                            : fmt::format("; next step (copy, not run): scontrol update nodename={} "
                                                          "state=drain reason=\"collbench fabric: slow\"",
                                                          host)),
                   ref::kStraggler, unit_subject(nv.node)});
  }
  for (const auto& l : a.slow_links)
    out.push_back({fmt::format("FABRIC_SLOW_LINK_{}", suffix(m)), Tag::Fail, Priority::P1,
                   fmt::format("{} <-> {}: {} {}, {} the pair median {}, while neither node is slow with others; "
                               "check the path between these two hosts",
                               name_of(run, l.a), name_of(run, l.b), what, value_text(m, l.median),
                               worse_text(m, l.drop), value_text(m, a.pair_median)),
                   ref::kPairwise, Subject::link(name_of(run, l.a), name_of(run, l.b))});
  if (!a.fabric_wide_rounds.empty())
    out.push_back({"FABRIC_WIDE_SLOWDOWN", Tag::Warn, Priority::P1,
                   fmt::format("round{} {}: most pairs' {} was far worse than in the other rounds; a fabric-wide "
                               "event, not blamed on any node; rerun to see whether it persists",
                               a.fabric_wide_rounds.size() > 1 ? "s" : "", fmt::join(a.fabric_wide_rounds, ", "), what),
                   ref::kPairwise});
  for (const auto& l : a.suspect_links)
    doubts.push_back(fmt::format("{} <-> {} {} ({} the pair median, within the others' spread)", name_of(run, l.a),
                                 name_of(run, l.b), value_text(m, l.median), worse_text(m, l.drop)));
  if (!doubts.empty()) {
    const std::size_t n = doubts.size();
    doubts.resize(std::min(n, kListed));
    out.push_back({"FABRIC_INCONCLUSIVE", Tag::Warn, Priority::P2,
                   fmt::format("{} not judged ({}{}); rerun with more iterations (-n, --bw-iters)", what,
                               fmt::join(doubts, "; "), n > kListed ? fmt::format("; and {} more", n - kListed) : ""),
                   ref::kPairwise});
  }
  if (stragglers == 0 && a.slow_links.empty() && doubts.empty() && a.fabric_wide_rounds.empty()) {
    double worst = 0;
    for (const auto& nv : a.nodes)
      if (!std::isnan(nv.drop)) worst = std::max(worst, nv.drop);
    out.push_back({fmt::format("FABRIC_PAIRS_OK"), Tag::Pass, Priority::None,
                   fmt::format("no slow node or link among {} {} on {}: median {}, worst node {} it", a.nodes.size(),
                               run.per_rank ? "ranks" : "nodes", what, ref_value, worse_text(m, worst)),
                   ""});
  }
  return out;
}

}  // namespace collbench::report
