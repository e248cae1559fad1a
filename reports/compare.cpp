#include "reports/compare.h"
#include "reports/json_read.h"
#include "reports/references.h"
#include "reports/result_verdicts.h"
#include "reports/text_table.h"

#include <fmt/format.h>

#include "reports/nccl_log.h"  // describe_ranks

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

// Difference of mean times (cur - base) in standard errors; 0 when either side has < 2 samples.
double z_score(const json& b, const json& c) {
  const json& tb = b["time_us"];
  const json& tc = c["time_us"];
  const double nb = tb.value("samples", 0.0), nc = tc.value("samples", 0.0);
  if (nb < 2 || nc < 2) return 0;
  const double sb = tb.value("stdev", 0.0), sc = tc.value("stdev", 0.0);
  const double se = std::sqrt(sb * sb / nb + sc * sc / nc);
  const double diff = tc.value("mean", 0.0) - tb.value("mean", 0.0);
  if (se == 0) return diff == 0 ? 0 : std::copysign(INFINITY, diff);
  return diff / se;
}

std::string world_text(const json& doc, const char* key) {
  const json& w = doc.contains("world") ? doc["world"] : json::object();
  if (!w.contains(key)) return "";
  return w[key].is_string() ? w[key].get<std::string>() : w[key].dump();
}

void add_setup_mismatches(const json& base, const json& cur, Comparison& out) {
  for (const char* key : {"ranks", "instance_type", "backend"}) {
    const std::string a = world_text(base, key), b = world_text(cur, key);
    if (a != b) out.mismatches.push_back(fmt::format("world.{}: {} in the baseline, {} now", key, a, b));
  }
  const auto nodes = [](const json& d) { return d.contains("world") ? d["world"].value("nodes", json::array()).size() : 0; };
  if (nodes(base) != nodes(cur))
    out.mismatches.push_back(fmt::format("nodes: {} in the baseline, {} now", nodes(base), nodes(cur)));
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

void add_findings(Comparison& out, double tolerance) {
  std::string changes;
  for (const auto& v : out.version_changes) changes += (changes.empty() ? "" : "; ") + v;
  if (!changes.empty())
    out.findings.push_back(
        {"VERSIONS_CHANGED", Tag::Info, Priority::None, "between the runs: " + changes, "", Subject::world()});
  for (const auto& m : out.mismatches)
    out.findings.push_back({"BASELINE_MISMATCH", Tag::Warn, Priority::P2,
                            m + "; cases were not compared blindly: rerun the baseline with the same setup", "",
                            Subject::world()});
  const std::string pointer = ref::kMultiNode;
  const std::string context = changes.empty() ? "" : " (versions changed: " + changes + ")";
  int worse = 0, compared = 0;
  for (const auto& c : out.cases) {
    ++compared;
    const std::string evidence =
        fmt::format("{} {} {} at {}{}: busbw {:.2f} -> {:.2f} GB/s ({:+.1f}%, {:.1f} standard errors)", c.op,
                    c.dtype, c.placement, size_text(c.bytes), group_text(c.group), c.base_busbw, c.cur_busbw,
                    100 * c.rel_change, c.z);
    if (c.verdict == Change::Worse) {
      ++worse;
      out.findings.push_back({"REGRESSION", Tag::Fail, Priority::P1, evidence + context, pointer, c.group});
    } else if (c.verdict == Change::Inconclusive) {
      out.findings.push_back({"REGRESSION_INCONCLUSIVE", Tag::Warn, Priority::P2,
                              evidence + ": beyond the tolerance but within the noise; rerun both with more "
                                         "iterations (-n 100 or -n auto)",
                              pointer, c.group});
    }
  }
  if (compared > 0 && worse == 0)
    out.findings.push_back({"NO_REGRESSION", Tag::Pass, Priority::None,
                            fmt::format("no case of {} is slower than the baseline beyond {:g}% and the noise",
                                        compared, 100 * tolerance),
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

Change classify(double rel_change, double z, double tolerance, double z_min) {
  if (std::abs(rel_change) < tolerance) return Change::Same;
  // Slower busbw means a longer mean time: z > 0.
  if (rel_change < 0) return z >= z_min ? Change::Worse : Change::Inconclusive;
  return z <= -z_min ? Change::Better : Change::Same;
}

Comparison compare_runs(const json& base, const json& cur, double tolerance) {
  Comparison out;
  add_setup_mismatches(base, cur, out);
  add_version_changes(base, cur, out);
  const bool comparable =
      world_text(base, "ranks") == world_text(cur, "ranks") &&
      world_text(base, "instance_type") == world_text(cur, "instance_type");
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
      CaseComparison cc{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k),
                        b.value("busbw_gbs", 0.0), c.value("busbw_gbs", 0.0), 0, z_score(b, c), Change::Same,
                        group_subject(c, nodes)};
      cc.rel_change = cc.base_busbw > 0 ? (cc.cur_busbw - cc.base_busbw) / cc.base_busbw : 0;
      cc.verdict = classify(cc.rel_change, cc.z, tolerance);
      out.cases.push_back(cc);
    }
    int only_base = 0;
    for (const auto& [k, _] : base_cases) only_base += !seen.count(k);
    const int only_cur = static_cast<int>(seen.size()) - static_cast<int>(out.cases.size());
    if (only_base > 0 || only_cur > 0)
      out.mismatches.push_back(fmt::format(
          "cases: {} only in the baseline, {} only in the current run (different ops, datatypes or sizes)", only_base,
          only_cur));
  }
  add_findings(out, tolerance);
  return out;
}

std::string render_comparison(const Comparison& c) {
  std::string out = fmt::format("# {:<14} {:>8} {:>12} {:>12}  {:>12} {:>12} {:>8} {:>7}  {}\n", "op", "dtype",
                                "placement", "size", "base GB/s", "now GB/s", "change", "z", "verdict");
  for (const auto& k : c.cases)
    out += fmt::format("  {:<14} {:>8} {:>12} {:>12}  {:>12.2f} {:>12.2f} {:>+7.1f}% {:>7.1f}  {}{}\n", k.op, k.dtype,
                       k.placement, size_text(k.bytes), k.base_busbw, k.cur_busbw, 100 * k.rel_change, k.z,
                       change_name(k.verdict), group_text(k.group));
  return out;
}

}  // namespace collbench::report
