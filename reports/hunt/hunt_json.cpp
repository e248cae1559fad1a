#include "reports/hunt/hunt_json.h"

#include <cmath>

#include "reports/core/json_report.h"
#include "reports/core/stats.h"

namespace collbench::report {

using nlohmann::json;

namespace {

json number_or_null(double x) { return std::isnan(x) ? json(nullptr) : json(x); }

const char* kind_name(NodeVerdict::Kind k) {
  switch (k) {
    case NodeVerdict::Kind::Straggler: return "straggler";
    case NodeVerdict::Kind::Inconclusive: return "inconclusive";
    case NodeVerdict::Kind::Healthy: break;
  }
  return "healthy";
}

json links(const std::vector<LinkVerdict>& ls, const std::vector<std::string>& names) {
  json out = json::array();
  for (const auto& l : ls)
    out.push_back({{"hosts", {names.at(l.a), names.at(l.b)}}, {"nodes", {l.a, l.b}}, {"busbw_gbs", l.median},
                   {"drop", l.drop}});
  return out;
}

}  // namespace

json to_json(const HuntRound& round, const std::vector<PairSample>& samples, const std::vector<std::string>& names) {
  json pairs = json::array();
  for (const auto& s : samples) {
    if (s.round != round.index) continue;
    pairs.push_back({{"nodes", {s.a, s.b}},
                     {"hosts", {names.at(s.a), names.at(s.b)}},
                     {"busbw_gbs", s.rates.empty() ? json(nullptr) : json(median(s.rates))},
                     {"iterations", s.rates.size()},
                     {"samples_gbs", s.rates}});
  }
  return {{"phase", round.phase}, {"index", round.index}, {"wall_s", round.wall_s}, {"pairs", std::move(pairs)}};
}

json hunt_document(const HuntRecord& r, const Attribution& a, const std::vector<Finding>& findings, int exit_code) {
  json doc = {{"schema", kHuntSchema}};
  doc.update(to_json(r.header));
  std::vector<std::string> names;
  for (const auto& n : r.header.world.nodes) names.push_back(n.name);

  doc["hunt"] = {{"pattern", r.plan.pattern},
                 {"op", r.plan.op},
                 {"bytes", r.plan.bytes},
                 {"bytes_chosen_by", r.plan.bytes_probed ? "probe" : "user"},
                 {"budget_s", r.plan.budget_s},
                 {"max_iters", r.plan.max_iters},
                 {"probe_iteration_s", r.plan.probe_iteration_s},
                 {"estimate_s", r.plan.estimate_s},
                 {"planned_rounds", r.plan.planned_rounds}};
  json rounds = json::array();
  double total = 0;
  for (const auto& round : r.rounds) {
    rounds.push_back(to_json(round, r.samples, names));
    total += round.wall_s;
  }
  doc["rounds"] = std::move(rounds);
  doc["rounds_wall_s"] = total;
  json missing = json::array();
  for (const auto& [a, b] : r.not_measured) missing.push_back({{"nodes", {a, b}}, {"hosts", {names.at(a), names.at(b)}}});
  doc["runnable_per_core"] = r.runnable_per_core;
  doc["not_measured"] = {{"pairs", std::move(missing)}, {"node_phase", r.node_phase_skipped}};

  json node_phase = json::array();
  const GroupJudgement judged =
      r.node_judgement.groups.size() == r.node_phase.size() ? r.node_judgement : judge_groups(r.node_phase);
  for (std::size_t i = 0; i < r.node_phase.size(); ++i) {
    const GroupScore& g = r.node_phase[i];
    const GroupVerdict& v = judged.groups[i];
    node_phase.push_back({{"host", g.label},
                          {"busbw_gbs", g.busbw_gbs},
                          {"samples", g.samples},
                          {"noise_gbs", g.noise_gbs},
                          {"drop", v.drop},
                          {"verdict", v.kind == GroupVerdict::Kind::Slow           ? "slow"
                                      : v.kind == GroupVerdict::Kind::Inconclusive ? "inconclusive"
                                                                                   : "healthy"},
                          {"reason", v.reason},
                          {"runnable_per_core", i < r.runnable_per_core.size() ? json(r.runnable_per_core[i])
                                                                                : json(nullptr)}});
  }
  doc["node_phase"] = std::move(node_phase);

  json matrix = json::array();
  for (const auto& row : a.matrix) {
    json cells = json::array();
    for (double x : row) cells.push_back(number_or_null(x));
    matrix.push_back(std::move(cells));
  }
  json nodes = json::array();
  for (const auto& nv : a.nodes) {
    json partners = json::array();
    for (const auto& [u, bw] : nv.worst_partners) partners.push_back({{"host", names.at(u)}, {"busbw_gbs", bw}});
    nodes.push_back({{"host", names.at(nv.node)},
                     {"node", nv.node},
                     {"verdict", kind_name(nv.kind)},
                     {"score_gbs", number_or_null(nv.score)},
                     {"drop", number_or_null(nv.drop)},
                     {"reason", nv.reason},
                     {"reference_gbs", number_or_null(nv.reference)},
                     {"worst_partners", std::move(partners)}});
  }
  doc["attribution"] = {{"hosts", names},
                        {"two_nodes", a.two_nodes},
                        {"matrix_gbs", std::move(matrix)},
                        {"cluster_median_gbs", a.cluster_median},
                        {"cluster_mad_gbs", a.mad},
                        {"pair_median_gbs", a.pair_median},
                        {"nodes", std::move(nodes)},
                        {"slow_links", links(a.slow_links, names)},
                        {"suspect_links", links(a.suspect_links, names)},
                        {"fabric_wide_rounds", a.fabric_wide_rounds}};
  add_verdict(doc, findings, exit_code);
  doc["complete"] = true;
  return doc;
}

}  // namespace collbench::report
