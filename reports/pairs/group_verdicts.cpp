#include "reports/pairs/group_verdicts.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "reports/core/references.h"
#include "reports/core/stats.h"

namespace collbench::report {

GroupJudgement judge_groups(const std::vector<GroupScore>& groups, const GroupRule& rule) {
  GroupJudgement out;
  out.groups.resize(groups.size());
  std::vector<double> scores;
  for (const auto& g : groups) scores.push_back(g.busbw_gbs);
  const Bound bound = make_bound(scores, rule);
  out.reference = bound.ref;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    GroupVerdict& v = out.groups[i];
    v.drop = bound.ref > 0 ? bound.drop(groups[i].busbw_gbs) : 0;
    out.spread = std::max(out.spread, v.drop);
    if (groups[i].samples < rule.min_samples) {
      v.kind = GroupVerdict::Kind::Inconclusive;
      v.reason = fmt::format("only {} samples (need {})", groups[i].samples, rule.min_samples);
    }
  }
  if (groups.size() == 2) {
    // The median of two sits between them: a gap is real but cannot be pinned on either.
    const double hi = std::max(scores[0], scores[1]), lo = std::min(scores[0], scores[1]);
    if (hi > 0 && lo <= hi * (1 - rule.min_drop))
      for (std::size_t i = 0; i < 2; ++i) {
        out.groups[i].kind = GroupVerdict::Kind::Inconclusive;
        out.groups[i].reason = fmt::format("the two groups differ by {:.0f}% and two cannot say which is off",
                                           100 * (1 - lo / hi));
      }
    return out;
  }
  std::vector<double> noises;
  for (const auto& g : groups) noises.push_back(g.noise_gbs);
  const double typical_noise = median(noises);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    GroupVerdict& v = out.groups[i];
    if (v.kind != GroupVerdict::Kind::Healthy) continue;
    if (bound.slow(groups[i].busbw_gbs)) {
      // Standard error of a median: 1.2533 sigma / sqrt(n), from the noisier of the group and a typical one.
      const double noise = std::max(groups[i].noise_gbs, typical_noise);
      const double se = groups[i].samples > 0 ? 1.2533 * noise / std::sqrt(static_cast<double>(groups[i].samples)) : 0;
      if (bound.ref - groups[i].busbw_gbs > rule.mad_k * se) {
        v.kind = GroupVerdict::Kind::Slow;
      } else {
        v.kind = GroupVerdict::Kind::Inconclusive;
        v.reason = fmt::format("{:.0f}% below, within the noise of its iterations (+-{:.3g} GB/s)", 100 * v.drop, noise);
      }
    } else if (v.drop >= 3 * rule.min_drop) {
      v.kind = GroupVerdict::Kind::Inconclusive;
      v.reason = "far below the others but within their spread";
    }
  }
  return out;
}

GroupJudgement combine_runs(const GroupJudgement& first, const GroupJudgement& second) {
  using Kind = GroupVerdict::Kind;
  GroupJudgement out = second;
  for (std::size_t i = 0; i < out.groups.size() && i < first.groups.size(); ++i) {
    const Kind a = first.groups[i].kind, b = second.groups[i].kind;
    GroupVerdict& v = out.groups[i];
    if (a == Kind::Slow && b == Kind::Slow) continue;
    if (b == Kind::Healthy && a != Kind::Slow) continue;
    if (b == Kind::Inconclusive) continue;  // keeps the second run's reason
    v.kind = Kind::Inconclusive;
    v.reason = fmt::format("slow in one of two runs only ({:.0f}% and {:.0f}% below)", 100 * first.groups[i].drop,
                           100 * second.groups[i].drop);
  }
  return out;
}

namespace {

std::vector<std::string> hosts_of(const GroupScore& g, bool node) {
  if (node && g.hosts.empty()) return {g.label};
  return g.hosts;
}

// The groups `pick` selects, as one node or rail subject.
template <typename Pick>
Subject subject_of(const std::vector<GroupScore>& groups, bool node, Pick pick) {
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (!pick(i)) continue;
    for (auto& h : hosts_of(groups[i], node)) hosts.push_back(std::move(h));
    ranks.insert(ranks.end(), groups[i].ranks.begin(), groups[i].ranks.end());
  }
  return node ? Subject::nodes(std::move(hosts), std::move(ranks)) : Subject::rail(std::move(ranks), std::move(hosts));
}

}  // namespace

std::vector<Finding> group_findings(const std::vector<GroupScore>& groups, const GroupJudgement& j, GroupKind kind,
                                    const std::string& what) {
  std::vector<Finding> out;
  if (j.reference <= 0) return out;  // single-rank groups move no data: nothing to compare
  const bool node = kind == GroupKind::Node;
  const char* noun = node ? "nodes" : "rails";
  std::string doubtful;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const GroupVerdict& v = j.groups[i];
    if (v.kind == GroupVerdict::Kind::Inconclusive)
      doubtful += fmt::format("{}{} {:.3g} GB/s: {}", doubtful.empty() ? "" : "; ", groups[i].label,
                              groups[i].busbw_gbs, v.reason);
    if (v.kind != GroupVerdict::Kind::Slow) continue;
    const Subject subject = subject_of(groups, node, [i](std::size_t k) { return k == i; });
    if (node)
      out.push_back({"SLOW_NODE_LOCAL", Tag::Fail, Priority::P1,
                     fmt::format("{}: its own {} {:.3g} GB/s, {:.0f}% below the median of the {} {} {:.3g} GB/s; "
                                 "the node's internal path (NVLink/NVSwitch, PCIe) is slow; next step (copy, not run): "
                                 "scontrol update nodename={} state=drain reason=\"collbench: slow intra-node\"",
                                 groups[i].label, what, groups[i].busbw_gbs, 100 * v.drop, groups.size(), noun,
                                 j.reference, groups[i].label),
                     ref::kSingleNode, subject});
    else
      out.push_back({"SLOW_RAIL", Tag::Fail, Priority::P1,
                     fmt::format("{} (GPU/NIC index on every node): {} {:.3g} GB/s, {:.0f}% below the median of the "
                                 "{} {} {:.3g} GB/s; check that index's EFA device and its GPU on each node",
                                 groups[i].label, what, groups[i].busbw_gbs, 100 * v.drop, groups.size(), noun,
                                 j.reference),
                     ref::kEfaConfig, subject});
  }
  if (!doubtful.empty())
    out.push_back({"GROUPS_INCONCLUSIVE", Tag::Warn, Priority::P2,
                   fmt::format("{} on {}{}: {}; inconclusive, rerun with more iterations{}", noun, node ? "their own " : "", what, doubtful,
                               groups.size() == 2 && node ? " or hunt with a third node" : ""),
                   node ? ref::kSingleNode : ref::kEfaConfig,
                   subject_of(groups, node,
                              [&j](std::size_t i) { return j.groups[i].kind == GroupVerdict::Kind::Inconclusive; })});
  if (out.empty() && groups.size() >= 2)
    out.push_back({"GROUPS_EVEN", Tag::Pass, Priority::None,
                   fmt::format("{} {} on {}{}: median {:.3g} GB/s, slowest {:.0f}% below it", groups.size(), noun, node ? "their own " : "", what,
                               j.reference, 100 * j.spread),
                   "", Subject::world()});
  return out;
}

void excuse_busy_hosts(GroupJudgement& j, const std::vector<double>& runnable_per_core) {
  for (std::size_t i = 0; i < j.groups.size() && i < runnable_per_core.size(); ++i) {
    GroupVerdict& g = j.groups[i];
    if (g.kind != GroupVerdict::Kind::Slow || !(runnable_per_core[i] > 1.0)) continue;
    g.kind = GroupVerdict::Kind::Inconclusive;
    g.reason = fmt::format("slow while its CPUs were oversubscribed ({:.1f} runnable tasks per core): CPU "
                           "contention, not necessarily its internal path; rerun when the host is quiet",
                           runnable_per_core[i]);
  }
}

}  // namespace collbench::report
