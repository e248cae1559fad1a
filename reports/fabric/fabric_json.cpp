#include "reports/fabric/fabric_json.h"

#include <cmath>

#include "reports/core/json_report.h"
#include "reports/core/summary.h"

namespace collbench::report {
namespace {

using nlohmann::json;

json unit_json(const FabricUnit& u) { return {{"name", u.name}, {"ranks", u.ranks}}; }

// NaN (unmeasured) as null; latency back from its rate.
json matrix_json(const Attribution& a, bool latency) {
  json rows = json::array();
  for (const auto& row : a.matrix) {
    json r = json::array();
    for (double x : row) {
      const double v = latency ? (x > 0 ? 1000.0 / x : NAN) : x;
      r.push_back(std::isnan(v) ? json(nullptr) : json(v));
    }
    rows.push_back(r);
  }
  return rows;
}

json verdicts_json(const Attribution& a, bool latency, const FabricRun& run) {
  auto val = [&](double x) { return latency ? (x > 0 ? json(1000.0 / x) : json(nullptr)) : json(x); };
  json nodes = json::array();
  for (const auto& nv : a.nodes) {
    const char* kind = nv.kind == NodeVerdict::Kind::Straggler      ? "slow"
                       : nv.kind == NodeVerdict::Kind::Inconclusive ? "inconclusive"
                                                                    : "healthy";
    nodes.push_back({{"unit", run.units[nv.node].name},
                     {"score", std::isnan(nv.score) ? json(nullptr) : val(nv.score)},
                     {"verdict", kind},
                     {"reason", nv.reason}});
  }
  json links = json::array();
  for (const auto& l : a.slow_links)
    links.push_back({{"a", run.units[l.a].name}, {"b", run.units[l.b].name}, {"median", val(l.median)}});
  return {{"cluster_median", val(a.cluster_median)}, {"units", nodes}, {"slow_links", links},
          {"fabric_wide_rounds", a.fabric_wide_rounds}};
}

}  // namespace

json fabric_document(const FabricRun& run, const Attribution* latency, const Attribution* bandwidth,
                     const std::vector<Finding>& findings, int exit_code) {
  const FabricProvider& p = run.provider;
  const auto& o = run.options;
  json nodes = json::array(), units = json::array(), efa = json::array(), rounds = json::array(), pairs = json::array();
  for (std::size_t i = 0; i < run.nodes.size(); ++i) {
    json n = unit_json(run.nodes[i]);
    n["runnable_per_core"] = i < run.runnable_per_core.size() ? json(run.runnable_per_core[i]) : json(nullptr);
    nodes.push_back(n);
  }
  for (const auto& u : run.units) units.push_back(unit_json(u));
  for (const auto& [node, count] : run.efa_devices) efa.push_back({{"node", node}, {"efa_devices", count}});
  for (std::size_t r = 0; r < run.rounds.size(); ++r) {
    json ps = json::array();
    for (const auto& [a, b] : run.rounds[r]) ps.push_back({a, b});
    const bool confirm = run.main_rounds >= 0 && static_cast<int>(r) >= run.main_rounds;
    rounds.push_back({{"round", r}, {"phase", confirm ? "confirm" : "pairs"}, {"pairs", ps}});
  }
  for (const auto& pr : run.pairs) {
    json lanes = json::array();
    for (const auto& l : pr.lanes) {
      json lat = json::array(), bw = json::array();
      for (const auto& pt : l.latency)
        lat.push_back({{"bytes", pt.bytes},
                       {"median_us", pt.median_us},
                       {"p99_us", pt.p99_us},
                       {"min_us", pt.min_us},
                       {"mean_us", pt.mean_us},
                       {"samples", pt.samples}});
      for (const auto& pt : l.bandwidth)
        bw.push_back({{"bytes", pt.bytes},
                      {"window", pt.window},
                      {"a_to_b_gbs", pt.a_to_b_gbs},
                      {"b_to_a_gbs", pt.b_to_a_gbs},
                      {"bidir_gbs", pt.bidir_gbs},
                      {"samples", pt.samples}});
      json lane{{"lane", l.lane}, {"ranks", {l.rank_a, l.rank_b}}, {"latency", lat}, {"bandwidth", bw}};
      if (l.latency_starved_at) lane["latency_starved_at"] = l.latency_starved_at;
      if (l.bandwidth_starved_at) lane["bandwidth_starved_at"] = l.bandwidth_starved_at;
      lanes.push_back(std::move(lane));
    }
    pairs.push_back({{"round", pr.round},
                     {"a", pr.a},
                     {"b", pr.b},
                     {"names", {run.units[pr.a].name, run.units[pr.b].name}},
                     {"lanes", lanes}});
  }
  json fs = json::array();
  for (const auto& f : findings) fs.push_back(to_json(f));
  json matrices = json::object();
  matrices["latency_us"] = latency ? json{{"bytes", run.latency_bytes}, {"values", matrix_json(*latency, true)}}
                                   : json(nullptr);
  matrices["bandwidth_gbs"] = bandwidth
                                  ? json{{"bytes", run.bandwidth_bytes}, {"values", matrix_json(*bandwidth, false)}}
                                  : json(nullptr);
  json verdicts = json::object();
  verdicts["latency"] = latency ? verdicts_json(*latency, true, run) : json(nullptr);
  verdicts["bandwidth"] = bandwidth ? verdicts_json(*bandwidth, false, run) : json(nullptr);
  return {{"schema", kFabricSchema},
          {"tool", {{"name", "collbench"}, {"version", run.tool_version}}},
          {"started_at", run.started_at},
          {"argv", run.argv},
          {"provider",
           {{"requested", p.requested},
            {"name", p.name},
            {"core", p.core},
            {"reason", p.reason},
            {"fell_back", p.fell_back},
            {"fabric", p.fabric},
            {"domain", p.domain},
            {"libfabric", p.libfabric},
            {"messaging", p.messaging},
            {"mr_local", p.mr_local},
            {"max_msg_size", p.max_msg_size},
            {"inject_size", p.inject_size},
            {"polling", p.polling},
            {"polling_reason", p.polling_reason}}},
          {"world",
           {{"ranks", run.ranks},
            {"nodes", nodes},
            {"units", units},
            {"unit_kind", run.per_rank ? "rank" : "node"},
            {"instance_type", run.instance_type.empty() ? json(nullptr) : json(run.instance_type)},
            {"efa", efa}}},
          {"options",
           {{"min_bytes", o.min_bytes},
            {"max_bytes", o.max_bytes},
            {"factor", o.factor},
            {"latency_max", o.latency_max},
            {"bandwidth_min", o.bandwidth_min},
            {"iters", o.iters},
            {"warmup", o.warmup},
            {"bw_iters", o.bw_iters},
            {"bw_warmup", o.bw_warmup},
            {"window", o.window},
            {"timeout_s", o.timeout_s},
            {"pattern", run.pattern}}},
          {"schedule", rounds},
          {"budget_s", run.budget_s},
          {"not_measured", [&] {
             json out = json::array();
             for (const auto& [a, b] : run.not_measured) out.push_back({a, b});
             return out;
           }()},
          {"pairs", pairs},
          {"matrices", matrices},
          {"attribution", verdicts},
          {"findings", fs},
          {"verdict", {{"issues_found", count_issues(findings)}, {"exit_code", exit_code}}},
          {"complete", true}};
}

}  // namespace collbench::report
