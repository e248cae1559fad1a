#include "reports/run/curve_verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "reports/core/text_table.h"

namespace collbench::report {
namespace {

using Series = std::map<std::uint64_t, double>;  // bytes -> busbw of one placement
using SeriesKey = std::tuple<std::string, std::string, Scope, int>;  // op, dtype, group scope, group id

struct Dip {
  std::vector<std::uint64_t> sizes;
  std::vector<double> drops;
  std::uint64_t below, above;  // the neighbours the curve runs through
};

// Runs of sizes below the log-log line through their neighbours, in one placement.
std::vector<Dip> dips_in(const Series& s, double min_drop, const CurveRule& rule) {
  std::vector<std::pair<std::uint64_t, double>> v(s.begin(), s.end());
  double peak = 0;
  for (const auto& [_, bw] : v) peak = std::max(peak, bw);
  std::vector<Dip> out;
  for (std::size_t i = 1; i + 1 < v.size();) {
    bool found = false;
    // The longest run first: a dip two sizes wide is one dip, not one size against a dipped neighbour.
    for (int len = rule.max_run; len >= 1 && !found; --len) {
      if (i + static_cast<std::size_t>(len) >= v.size()) continue;
      const auto& lo = v[i - 1];
      const auto& hi = v[i + static_cast<std::size_t>(len)];
      if (lo.second <= 0 || hi.second <= 0 || std::min(lo.second, hi.second) < std::max(rule.min_gbs, rule.min_share_of_peak * peak))
        continue;
      Dip d{{}, {}, lo.first, hi.first};
      bool all = true, below_smaller = false;
      for (std::size_t k = i; k < i + static_cast<std::size_t>(len); ++k) {
        const double t = std::log2(static_cast<double>(v[k].first) / static_cast<double>(lo.first)) /
                         std::log2(static_cast<double>(hi.first) / static_cast<double>(lo.first));
        const double expected = std::exp(std::log(lo.second) + t * (std::log(hi.second) - std::log(lo.second)));
        const double drop = 1 - v[k].second / expected;
        all = all && drop >= min_drop;
        below_smaller = below_smaller || v[k].second < lo.second;
        d.sizes.push_back(v[k].first);
        d.drops.push_back(drop);
      }
      if (all && below_smaller) {
        out.push_back(std::move(d));
        i += static_cast<std::size_t>(len);
        found = true;
      }
    }
    if (!found) ++i;
  }
  return out;
}

}  // namespace

std::vector<Finding> curve_dip_findings(const std::vector<CaseResult>& cases, const CurveRule& rule) {
  std::map<SeriesKey, std::map<Placement, Series>> series;  // placement -> series
  for (const auto& c : cases)
    if (std::isfinite(c.busbw_gbs))
      series[{c.op, c.dtype, c.group.scope, c.group.id}][c.placement][c.bytes] = c.busbw_gbs;
  std::vector<Finding> out;
  for (const auto& [key, placements] : series) {
    // The table's own noise: how far in-place and out-of-place differ at one size.
    std::vector<double> spread;
    if (placements.size() == 2) {
      const Series& a = placements.begin()->second;
      const Series& b = std::next(placements.begin())->second;
      for (const auto& [bytes, x] : a)
        if (auto it = b.find(bytes); it != b.end() && x + it->second > 0)
          spread.push_back(std::abs(x - it->second) / ((x + it->second) / 2));
    }
    const double min_drop = std::max(rule.min_drop, rule.noise_factor * (spread.empty() ? 0 : median(spread)));
    // A dip counts where every placement has it at the same sizes, and is as deep as the shallower
    // placement says: both agree it is at least that far below.
    std::vector<Dip> common;
    bool first = true;
    for (const auto& [placement, s] : placements) {
      auto dips = dips_in(s, min_drop, rule);
      if (first) common = std::move(dips);
      else
        std::erase_if(common, [&](Dip& d) {
          const auto e = std::find_if(dips.begin(), dips.end(), [&](const Dip& x) { return x.sizes == d.sizes; });
          if (e == dips.end()) return true;
          for (std::size_t k = 0; k < d.drops.size(); ++k) d.drops[k] = std::min(d.drops[k], e->drops[k]);
          return false;
        });
      first = false;
    }
    if (common.empty()) continue;
    const auto& [op, dtype, scope, id] = key;
    std::vector<std::string> parts;
    for (const auto& d : common) {
      std::vector<std::string> at;
      for (std::size_t k = 0; k < d.sizes.size(); ++k)
        at.push_back(fmt::format("{} ({:.0f}% below)", size_text(d.sizes[k]), 100 * d.drops[k]));
      parts.push_back(fmt::format("{}, against the curve through {} and {}", fmt::join(at, ", "), size_text(d.below),
                                  size_text(d.above)));
    }
    out.push_back({"CURVE_DIP", Tag::Warn, Priority::P1,
                   fmt::format("{} {} busbw{} dips where it should rise: {}; lower than at a smaller size, in {} "
                               "(the table's own in-place/out-of-place spread is {:.1f}%); a protocol or algorithm "
                               "switch at those sizes is the usual cause: compare NCCL versions, NCCL_PROTO and "
                               "NCCL_ALGO, and the tuner plugin",
                               op, dtype, scope == Scope::World ? "" : fmt::format(" ({} {})", scope_name(scope), id),
                               fmt::join(parts, "; "),
                               placements.size() == 2 ? "both placements" : "the placement measured",
                               spread.empty() ? 0.0 : 100 * median(spread)),
                   ref::kAdvancedTuning, Subject::world()});
  }
  return out;
}

bool curve_rule_applies(const std::string& backend) { return backend != "mpi"; }

}  // namespace collbench::report
