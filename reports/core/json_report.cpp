#include "reports/core/json_report.h"

#include "reports/core/summary.h"

namespace collbench::report {

using nlohmann::json;

json to_json(const RunHeader& h) {
  const WorldInfo& w = h.world;
  json nodes = json::array();
  for (const auto& n : w.nodes) nodes.push_back({{"name", n.name}, {"ranks", n.ranks}});
  json ranks = json::array();
  for (const auto& r : w.rank_info)
    ranks.push_back({{"rank", r.rank},
                     {"pid", r.pid},
                     {"host", r.host},
                     {"device", r.device},
                     {"bus_id", r.bus_id},
                     {"device_name", r.device_name},
                     {"machine", r.machine},
                     {"cores", r.cores}});
  const SweepInfo& s = h.sweep;
  return {
      {"tool", {{"name", "collbench"}, {"version", h.tool_version}}},
      {"started_at", h.started_at},
      {"argv", h.argv},
      {"world",
       {{"ranks", w.ranks},
        {"processes", w.processes},
        {"gpus_per_process", w.gpus_per_process},
        {"nodes", nodes},
        {"rank_info", ranks},
        {"backend", w.backend},
        {"backend_reason", w.backend_reason},
        {"instance_type", w.instance_type},
        {"versions", w.versions}}},
      {"options",
       {{"min_bytes", s.min_bytes},
        {"max_bytes", s.max_bytes},
        {"factor", s.factor},
        {"step_bytes", s.step_bytes},
        {"warmup", s.warmup},
        {"iters", s.iters},
        {"check_iters", s.check_iters},
        {"cudagraph_calls", s.graph_calls},
        {"rank_reduce", rank_reduce_name(h.rank_reduce)}}},
      {"notes", h.notes},
  };
}

json to_json(const CaseArrival& a) {
  const bool named = a.rank >= 0;
  return {{"rank", named ? json(a.rank) : json(nullptr)},
          {"host", named ? json(a.host) : json(nullptr)},
          {"iterations", a.iterations},
          {"late_iterations", a.late},
          {"last_iterations", a.last},
          {"median_lateness_us", named ? json(a.median_lateness_us) : json(nullptr)},
          {"wait_share", named ? json(a.wait_share) : json(nullptr)},
          {"wait_fraction", named ? json(a.wait_fraction) : json(nullptr)},
          {"clock_error_us", a.clock_error_us}};
}

json to_json(const CaseResult& c) {
  json nodes = json::array();
  for (const auto& n : c.node_median_us) nodes.push_back({{"node", n.node}, {"median_us", n.median_us}});
  const TimeStats& t = c.time_us;
  return {
      {"op", c.op},
      {"dtype", c.dtype},
      {"redop", c.redop},
      {"placement", placement_name(c.placement)},
      {"root", c.root},
      {"bytes", c.bytes},
      {"count", c.count},
      {"requested_bytes", c.requested_bytes},
      {"group", {{"scope", scope_name(c.group.scope)}, {"id", c.group.id}, {"ranks", c.group.ranks}}},
      {"time_us",
       {{"median", t.median},
        {"mean", t.mean},
        {"min", t.min},
        {"max", t.max},
        {"p99", t.p99},
        {"stdev", t.stdev},
        {"mad", t.mad},
        {"samples", t.samples}}},
      {"algbw_gbs", c.algbw_gbs},
      {"busbw_gbs", c.busbw_gbs},
      {"wrong", c.wrong ? json(*c.wrong) : json(nullptr)},
      {"wrong_ranks", c.wrong_ranks},
      {"stop_reason", c.stop_reason},
      {"cpu_wait_share", c.cpu_wait_share >= 0 ? nlohmann::json(c.cpu_wait_share) : nlohmann::json(nullptr)},
      {"rank_median_us", c.rank_median_us},
      {"node_median_us", nodes},
      {"arrival", c.arrival ? to_json(*c.arrival) : json(nullptr)},
  };
}

json to_json(const Subject& s) {
  // A world subject names nobody, whatever lists it was given.
  const bool world = s.kind == SubjectKind::World;
  return {{"kind", subject_kind_name(s.kind)},
          {"hosts", world ? std::vector<std::string>{} : s.hosts},
          {"ranks", world ? std::vector<int>{} : s.ranks}};
}

json to_json(const Finding& f) {
  const std::string prio = priority_name(f.priority);
  return {{"code", f.code},
          {"tag", tag_name(f.tag)},
          {"priority", prio.empty() ? json(nullptr) : json(prio)},
          {"message", f.message},
          {"reference", f.reference.empty() ? json(nullptr) : json(f.reference)},
          {"subject", to_json(f.subject)}};
}

void add_verdict(json& doc, const std::vector<Finding>& findings, int exit_code) {
  json fs = json::array();
  for (const auto& f : findings) fs.push_back(to_json(f));
  doc["findings"] = std::move(fs);
  doc["verdict"] = {{"issues_found", count_issues(findings)}, {"exit_code", exit_code}};
}

json run_document(const RunHeader& header, const std::vector<CaseResult>& cases, const std::vector<Finding>& findings,
                  const RunOutcome& outcome) {
  json doc = {{"schema", kRunSchema}};
  doc.update(to_json(header));
  json cs = json::array();
  for (const auto& c : cases) cs.push_back(to_json(c));
  doc["cases"] = std::move(cs);
  add_verdict(doc, findings, outcome.exit_code);
  doc["complete"] = outcome.complete;
  doc["error"] = outcome.error.empty() ? json(nullptr) : json(outcome.error);
  return doc;
}

}  // namespace collbench::report
