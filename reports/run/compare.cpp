#include "reports/run/compare.h"
#include "reports/core/json_read.h"
#include "reports/core/references.h"
#include "reports/core/oversubscription.h"
#include "reports/run/result_verdicts.h"
#include "reports/core/text_table.h"

#include <fmt/format.h>

#include "reports/env/nccl_log.h"  // describe_ranks

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace collbench::report {
namespace {

using nlohmann::json;
// Op, datatype, placement, bytes, then the group's scope and id: a node-scope run has one case per node.
using Key = std::tuple<std::string, std::string, std::string, std::uint64_t, std::string, int>;

Key key_of(const json& c) {
  const json& g = c.contains("group") ? c["group"] : json::object();
  return {c.value("op", ""),        c.value("dtype", ""),      c.value("placement", ""),
          c.value("bytes", std::uint64_t{0}), g.value("scope", "world"), g.value("id", 0)};
}

Subject group_subject(const json& c, const std::vector<NodeInfo>& nodes) {
  if (!c.contains("group")) return Subject::world();
  const std::string scope = c["group"].value("scope", "world");
  const auto ranks = c["group"].value("ranks", std::vector<int>{});
  if (scope == "node") return Subject::nodes(hosts_of_ranks(nodes, ranks), ranks);
  if (scope == "rail") return Subject::rail(ranks, hosts_of_ranks(nodes, ranks));
  return Subject::world();
}

// " on node a", " on rail ranks 1,3 (a, b)", or "" for the world.
std::string group_text(const Subject& s) {
  if (s.kind == SubjectKind::World) return "";
  std::string hosts;
  for (const auto& h : s.hosts) hosts += (hosts.empty() ? "" : ", ") + h;
  if (s.kind == SubjectKind::Node) return " on node " + hosts;
  return fmt::format(" on rail {}{}", describe_ranks(s.ranks), hosts.empty() ? "" : " (" + hosts + ")");
}

// A case's time statistics; an empty object where a file has none.
const json& time_of(const json& c) {
  static const json kNone = json::object();
  return c.contains("time_us") && c["time_us"].is_object() ? c["time_us"] : kNone;
}

// Whether a run's case records the spread of the bulk of its iterations (MAD; collbench from 0.2).
bool has_mad(const json& c) { return time_of(c).contains("mad") && time_of(c).value("samples", 0.0) >= 2; }

// Difference of the times (cur - base) in standard errors: of the medians where both runs give
// their MAD (a few preempted iterations inflate a standard deviation tenfold, and with it every
// mean's error), else of the means; NaN when either side has < 2 samples (nccl-tests text prints
// one figure per case).
double z_score(const json& b, const json& c) {
  const json& tb = time_of(b);
  const json& tc = time_of(c);
  const double nb = tb.value("samples", 0.0), nc = tc.value("samples", 0.0);
  if (nb < 2 || nc < 2) return NAN;
  const bool robust = has_mad(b) && has_mad(c);
  // The median's standard error is sqrt(pi / 2) x sigma / sqrt(n) for normal data.
  const double k = robust ? 1.2533 : 1.0;
  const double sb = k * tb.value(robust ? "mad" : "stdev", 0.0), sc = k * tc.value(robust ? "mad" : "stdev", 0.0);
  const double se = std::sqrt(sb * sb / nb + sc * sc / nc);
  const char* centre = robust ? "median" : "mean";
  const double diff = tc.value(centre, 0.0) - tb.value(centre, 0.0);
  if (se == 0) return diff == 0 ? 0 : std::copysign(INFINITY, diff);
  return diff / se;
}

std::string world_text(const json& doc, const char* key) {
  const json& w = doc.contains("world") ? doc["world"] : json::object();
  if (!w.contains(key)) return "";
  return w[key].is_string() ? w[key].get<std::string>() : w[key].dump();
}

// A fact one side does not know ("", 0 ranks, no node list) cannot contradict the other.
bool known(const std::string& v) { return !v.empty() && v != "0" && v != "\"\""; }

void add_setup_mismatches(const json& base, const json& cur, Comparison& out) {
  for (const char* key : {"ranks", "instance_type", "backend"}) {
    const std::string a = world_text(base, key), b = world_text(cur, key);
    if (known(a) && known(b) && a != b)
      out.mismatches.push_back(fmt::format("world.{}: {} in the baseline, {} now", key, a, b));
  }
  const auto nodes = [](const json& d) { return d.contains("world") ? d["world"].value("nodes", json::array()).size() : 0; };
  if (nodes(base) > 0 && nodes(cur) > 0 && nodes(base) != nodes(cur))
    out.mismatches.push_back(fmt::format("nodes: {} in the baseline, {} now", nodes(base), nodes(cur)));
}

// busbw by series (op, datatype, group), size and placement, of one run.
using SeriesKey = std::tuple<std::string, std::string, std::string, int>;
using Curves = std::map<SeriesKey, std::map<std::uint64_t, std::map<std::string, double>>>;

Curves curves_of(const json& doc) {
  Curves out;
  if (!doc.contains("cases")) return out;
  for (const auto& c : doc["cases"]) {
    const Key k = key_of(c);
    out[{std::get<0>(k), std::get<1>(k), std::get<4>(k), std::get<5>(k)}][std::get<3>(k)][std::get<2>(k)] =
        c.value("busbw_gbs", 0.0);
  }
  return out;
}

double peak_of(const std::map<std::uint64_t, std::map<std::string, double>>& series) {
  double peak = 0;
  for (const auto& [_, by] : series)
    for (const auto& [__, bw] : by) peak = std::max(peak, bw);
  return peak;
}

// The spread of one run's iterations of a case, relative to their centre: MAD / median where the
// run records it, else stdev / mean; 0 without statistics.
double own_spread(const json& c) {
  const json& t = time_of(c);
  if (has_mad(c)) return t.value("median", 0.0) > 0 ? t.value("mad", 0.0) / t.value("median", 0.0) : 0;
  const double mean = t.value("mean", 0.0);
  return t.value("samples", 0.0) >= 2 && mean > 0 ? t.value("stdev", 0.0) / mean : 0;
}

// busbw's change as the median times tell it (busbw goes as 1 / time); NaN where either run lacks
// per-iteration samples (a text input's one figure per case is its mean).
double median_change(const json& b, const json& c) {
  const json &tb = time_of(b), &tc = time_of(c);
  if (tb.value("samples", 0.0) < 2 || tc.value("samples", 0.0) < 2) return NAN;
  const double mb = tb.value("median", 0.0), mc = tc.value("median", 0.0);
  return mb > 0 && mc > 0 ? mb / mc - 1 : NAN;
}

// Whether `n` moved the way `c` did, as far as a neighbour must: beyond the tolerance, or for a
// latency-bound case beyond its own floor with its own significance.
bool agrees(const CaseComparison& c, const CaseComparison& n, double tolerance, double z_min) {
  if ((n.change < 0) != (c.change < 0)) return false;
  if (!c.latency_bound) return std::abs(n.change) >= tolerance;
  return std::abs(n.change) >= n.floor && (std::isnan(n.z) || std::abs(n.z) >= z_min);
}

// The cases next to `c`: the other placements at its size, and its placement one size either way.
template <class Find>
std::vector<const CaseComparison*> neighbours(const CaseComparison& c,
                                              const std::map<std::uint64_t, std::map<std::string, double>>& series,
                                              Find find) {
  std::vector<const CaseComparison*> near;
  for (const auto& [placement, _] : series.at(c.bytes))
    if (placement != c.placement)
      if (const CaseComparison* n = find(placement, c.bytes)) near.push_back(n);
  const auto here = series.find(c.bytes);
  for (auto n : {here == series.begin() ? series.end() : std::prev(here), std::next(here)})
    if (n != series.end())
      if (const CaseComparison* m = find(c.placement, n->first)) near.push_back(m);
  return near;
}

// Each case's floor from its own samples, then its verdict with a neighbour's agreement and the
// host's state (busy, or its ranks crowding the cores).
void judge_cases(Comparison& out, const json& base, const json& cur, double tolerance, const NoiseRule& rule) {
  const Curves cb = curves_of(base);
  std::map<std::tuple<std::string, std::string, std::string, int, std::string, std::uint64_t>, const CaseComparison*>
      by_key;
  for (auto& c : out.cases) {
    by_key[{c.op, c.dtype, c.group_scope, c.group_id, c.placement, c.bytes}] = &c;
    c.floor = std::max(tolerance, rule.noise_factor * c.noise);
    c.change = std::isnan(c.median_change) ? c.rel_change : c.median_change;
    c.latency_bound = c.base_busbw < rule.latency_bound_share * peak_of(cb.at({c.op, c.dtype, c.group_scope, c.group_id}));
  }
  std::optional<std::string> crowded = oversubscribed(base);
  if (!crowded) crowded = oversubscribed(cur);
  for (auto& c : out.cases) {
    const auto find = [&](const std::string& placement, std::uint64_t bytes) -> const CaseComparison* {
      auto it = by_key.find({c.op, c.dtype, c.group_scope, c.group_id, placement, bytes});
      return it == by_key.end() ? nullptr : it->second;
    };
    for (const CaseComparison* n : neighbours(c, cb.at({c.op, c.dtype, c.group_scope, c.group_id}), find))
      if (agrees(c, *n, tolerance, rule.z_min)) {
        c.agreed = fmt::format("{} {} agrees ({:+.1f}%)", n->placement, size_text(n->bytes), 100 * n->change);
        break;
      }
    c.verdict = classify(c.change, c.z, c.floor, !c.agreed.empty(), rule.z_min);
    c.busy = c.cpu_wait > rule.max_cpu_wait;
    if (crowded && c.latency_bound) c.crowded = *crowded;
    if (c.verdict == Change::Worse) {
      if (c.rel_change >= 0) c.doubt = "its busbw (from the mean time) did not drop: the baseline had slow iterations";
      else if (c.busy) c.doubt = fmt::format("its processes waited for a CPU {:.0f}% of the time: a busy host", 100 * c.cpu_wait);
      else if (!c.crowded.empty()) c.doubt = "latency-bound while " + c.crowded;
      if (!c.doubt.empty()) c.verdict = Change::Inconclusive;
    } else if (c.verdict == Change::Same && c.rel_change <= -c.floor && !std::isnan(c.median_change)) {
      // The mean dropped, the bulk did not: a few slow iterations, worth a look, not a verdict.
      c.verdict = Change::Inconclusive;
      c.doubt = "the median did not move as far: a few slow iterations";
    } else if (c.verdict == Change::Inconclusive) {
      c.doubt = c.agreed.empty() ? "no other case agrees" : "within the noise of its iterations";
    }
  }
}

void add_version_changes(const json& base, const json& cur, Comparison& out) {
  const auto versions = [](const json& d) {
    std::map<std::string, std::string> v;
    if (d.contains("world") && d["world"].contains("versions"))
      for (const auto& [k, val] : d["world"]["versions"].items()) v[k] = val.is_string() ? val.get<std::string>() : val.dump();
    return v;
  };
  const auto a = versions(base), b = versions(cur);
  std::set<std::string> keys;
  for (const auto& [k, _] : a) keys.insert(k);
  for (const auto& [k, _] : b) keys.insert(k);
  for (const auto& k : keys) {
    const std::string va = a.count(k) ? a.at(k) : "none", vb = b.count(k) ? b.at(k) : "none";
    if (va != vb) out.version_changes.push_back(fmt::format("{} {} -> {}", k, va, vb));
  }
}

// Where a regression of this case points: the pairs for all_to_all and sendrecv, whose traffic
// crosses every pair; one node's baseline for a node-scope case; the cluster test otherwise.
std::string reference_for(const CaseComparison& c) {
  if (c.group.kind == SubjectKind::Node) return ref::kSingleNode;
  if (c.op == "all_to_all" || c.op == "sendrecv" || c.op == "all_to_all_v") return ref::kPairwise;
  return ref::kMultiNode;
}

void add_findings(Comparison& out) {
  std::string changes;
  for (const auto& v : out.version_changes) changes += (changes.empty() ? "" : "; ") + v;
  if (!changes.empty())
    out.findings.push_back(
        {"VERSIONS_CHANGED", Tag::Info, Priority::None, "between the runs: " + changes, "", Subject::world()});
  for (const auto& m : out.mismatches)
    out.findings.push_back({"BASELINE_MISMATCH", Tag::Warn, Priority::P2,
                            m + "; cases were not compared blindly: rerun the baseline with the same setup", "",
                            Subject::world()});
  const std::string context = changes.empty() ? "" : " (versions changed: " + changes + ")";
  int worse = 0, compared = 0;
  for (const auto& c : out.cases) {
    ++compared;
    const std::string pointer = reference_for(c);
    const std::string evidence = fmt::format(
        "{} {} {} at {}{}: busbw {:.2f} -> {:.2f} GB/s ({:+.1f}%{}; {}; noise floor {:.1f}%{})", c.op, c.dtype,
        c.placement, size_text(c.bytes), group_text(c.group), c.base_busbw, c.cur_busbw, 100 * c.rel_change,
        std::isnan(c.median_change) ? "" : fmt::format(", median {:+.1f}%", 100 * c.median_change),
        std::isnan(c.z) ? "no per-iteration statistics" : fmt::format("{:.1f} standard errors", c.z), 100 * c.floor,
        c.agreed.empty() ? "" : ", " + c.agreed);
    if (c.verdict == Change::Worse) {
      ++worse;
      out.findings.push_back({"REGRESSION", Tag::Fail, Priority::P1, evidence + context, pointer, c.group});
    } else if (c.verdict == Change::Inconclusive) {
      const char* advice = c.busy                ? "rerun both on a quiet host"
                           : !c.crowded.empty() ? "rerun both with a core per rank"
                                                : "rerun both with more iterations (-n 100 or -n auto)";
      out.findings.push_back({"REGRESSION_INCONCLUSIVE", Tag::Warn, Priority::P2,
                              fmt::format("{}: not called a regression: {}; {}", evidence, c.doubt, advice), pointer,
                              c.group});
    }
  }
  if (compared > 0 && worse == 0)
    out.findings.push_back({"NO_REGRESSION", Tag::Pass, Priority::None,
                            fmt::format("no case of {} is slower than the baseline beyond {:g}% ({}; more where the "
                                        "runs are noisier) and the noise, with a neighbouring case agreeing",
                                        compared, 100 * out.tolerance, out.tolerance_basis),
                            "", Subject::world()});
}

}  // namespace

std::string change_name(Change c) {
  switch (c) {
    case Change::Better: return "better";
    case Change::Same: return "same";
    case Change::Worse: return "worse";
    case Change::Inconclusive: return "inconclusive";
  }
  return "same";
}

Change classify(double rel_change, double z, double floor, bool agreed, double z_min) {
  if (std::abs(rel_change) < floor) return Change::Same;
  // Slower busbw means a longer mean time: z > 0. NaN: no statistics to hold it against.
  if (rel_change < 0) return agreed && (std::isnan(z) || z >= z_min) ? Change::Worse : Change::Inconclusive;
  return agreed && (std::isnan(z) || z <= -z_min) ? Change::Better : Change::Same;
}

Tolerance default_tolerance(const json& base, const json& cur) {
  const auto backend = [](const json& doc) {
    return doc.contains("world") && doc["world"].is_object() ? doc["world"].value("backend", std::string()) : "";
  };
  if (backend(base) == "mpi" || backend(cur) == "mpi")
    return {0.25, "the mpi backend's default: host-memory collectives drift up to ~30% between identical runs"};
  return {0.05, "the default"};
}

Comparison compare_runs(const json& base, const json& cur, std::optional<double> given, const NoiseRule& noise) {
  Comparison out;
  const Tolerance t = given ? Tolerance{*given, "--tolerance"} : default_tolerance(base, cur);
  const double tolerance = t.value;
  out.tolerance = t.value;
  out.tolerance_basis = t.basis;
  add_setup_mismatches(base, cur, out);
  add_version_changes(base, cur, out);
  const bool comparable = std::none_of(out.mismatches.begin(), out.mismatches.end(), [](const std::string& m) {
    return m.starts_with("world.ranks") || m.starts_with("world.instance_type");
  });
  if (comparable) {
    static const json kNone = json::array();
    const json& base_list = base.contains("cases") ? base["cases"] : kNone;
    const json& cur_list = cur.contains("cases") ? cur["cases"] : kNone;
    std::map<Key, const json*> base_cases;  // points into `base`, which outlives the map
    for (const auto& c : base_list) base_cases[key_of(c)] = &c;
    std::set<Key> seen;
    const std::vector<NodeInfo> nodes = nodes_from_json(cur);
    for (const auto& c : cur_list) {
      const Key k = key_of(c);
      seen.insert(k);
      auto it = base_cases.find(k);
      if (it == base_cases.end()) continue;
      const json& b = *it->second;
      CaseComparison cc;
      cc.op = std::get<0>(k);
      cc.dtype = std::get<1>(k);
      cc.placement = std::get<2>(k);
      cc.bytes = std::get<3>(k);
      cc.group_scope = std::get<4>(k);
      cc.group_id = std::get<5>(k);
      cc.base_busbw = b.value("busbw_gbs", 0.0);
      cc.cur_busbw = c.value("busbw_gbs", 0.0);
      cc.z = z_score(b, c);
      cc.noise = std::max(own_spread(b), own_spread(c));
      cc.median_change = median_change(b, c);
      for (const json* side : {&b, &c})
        if (side->contains("cpu_wait_share") && (*side)["cpu_wait_share"].is_number())
          cc.cpu_wait = std::max(cc.cpu_wait, (*side)["cpu_wait_share"].get<double>());
      cc.group = group_subject(c, nodes);
      cc.rel_change = cc.base_busbw > 0 ? (cc.cur_busbw - cc.base_busbw) / cc.base_busbw : 0;
      out.cases.push_back(cc);
    }
    int only_base = 0;
    for (const auto& [k, _] : base_cases) only_base += !seen.count(k);
    const int only_cur = static_cast<int>(seen.size()) - static_cast<int>(out.cases.size());
    judge_cases(out, base, cur, tolerance, noise);
    if (only_base > 0 || only_cur > 0)
      out.mismatches.push_back(fmt::format(
          "cases: {} only in the baseline, {} only in the current run (different ops, datatypes or sizes)", only_base,
          only_cur));
  }
  add_findings(out);
  return out;
}

std::string render_comparison(const Comparison& c) {
  std::string out = fmt::format("# tolerance {:g}% ({})\n", 100 * c.tolerance, c.tolerance_basis);
  out += fmt::format("# {:<14} {:>8} {:>12} {:>12}  {:>12} {:>12} {:>8} {:>8} {:>6} {:>7}  {}\n", "op", "dtype",
                     "placement", "size", "base GB/s", "now GB/s", "change", "median", "floor", "z", "verdict");
  for (const auto& k : c.cases)
    out += fmt::format("  {:<14} {:>8} {:>12} {:>12}  {:>12.2f} {:>12.2f} {:>+7.1f}% {:>8} {:>5.1f}% {:>7}  {}{}\n", k.op,
                       k.dtype, k.placement, size_text(k.bytes), k.base_busbw, k.cur_busbw, 100 * k.rel_change,
                       std::isnan(k.median_change) ? std::string("-") : fmt::format("{:+.1f}%", 100 * k.median_change),
                       100 * k.floor, std::isnan(k.z) ? std::string("-") : fmt::format("{:.1f}", k.z),
                       change_name(k.verdict), group_text(k.group));
  return out;
}

}  // namespace collbench::report
