#include "reports/core/json_read.h"

#include <fmt/format.h>

#include <set>
#include <sstream>
#include <stdexcept>

#include "reports/core/json_numbers.h"

namespace collbench::report {

using nlohmann::json;

namespace {

CaseArrival arrival_from_json(const json& a) {
  CaseArrival out;
  if (a.contains("rank") && !a["rank"].is_null()) out.rank = whole_number<int>(a["rank"], "arrival rank");
  if (a.contains("host") && a["host"].is_string()) out.host = a["host"].get<std::string>();
  out.iterations = whole_value(a, "iterations", std::size_t{0});
  out.late = whole_value(a, "late_iterations", std::size_t{0});
  out.last = whole_value(a, "last_iterations", std::size_t{0});
  if (a.contains("median_lateness_us") && a["median_lateness_us"].is_number())
    out.median_lateness_us = a["median_lateness_us"].get<double>();
  if (a.contains("wait_share") && a["wait_share"].is_number()) out.wait_share = a["wait_share"].get<double>();
  if (a.contains("wait_fraction") && a["wait_fraction"].is_number()) out.wait_fraction = a["wait_fraction"].get<double>();
  out.clock_error_us = a.value("clock_error_us", 0.0);
  return out;
}

}  // namespace

CaseResult case_from_json(const json& c) {
  CaseResult r;
  r.op = c.value("op", "");
  r.dtype = c.value("dtype", "");
  r.redop = c.value("redop", "");
  const std::string placement = c.value("placement", "out_of_place");
  if (!parse_placement(placement, &r.placement))
    throw std::invalid_argument(fmt::format("case placement '{}' is unknown: a collbench run file says out_of_place "
                                            "or in_place", placement));
  r.root = whole_value(c, "root", -1);
  r.bytes = whole_value(c, "bytes", std::uint64_t{0});
  r.count = whole_value(c, "count", std::uint64_t{0});
  r.requested_bytes = whole_value(c, "requested_bytes", r.bytes);
  if (c.contains("group")) {
    const std::string scope = c["group"].value("scope", "world");
    if (!parse_scope(scope, &r.group.scope))
      throw std::invalid_argument(
          fmt::format("case group scope '{}' is unknown: a collbench run file says world, node or rail", scope));
    r.group.id = whole_value(c["group"], "id", 0);
    r.group.ranks = whole_list<int>(c["group"], "ranks");
  }
  if (c.contains("time_us")) {
    const json& t = c["time_us"];
    r.time_us = {t.value("median", 0.0), t.value("mean", 0.0), t.value("min", 0.0), t.value("max", 0.0),
                 t.value("p99", 0.0),    t.value("stdev", 0.0), whole_value(t, "samples", std::size_t{0})};
  }
  r.algbw_gbs = c.value("algbw_gbs", 0.0);
  r.busbw_gbs = c.value("busbw_gbs", 0.0);
  if (c.contains("wrong") && c["wrong"].is_number_integer()) r.wrong = c["wrong"].get<std::int64_t>();
  r.wrong_ranks = whole_list<int>(c, "wrong_ranks");
  r.stop_reason = c.value("stop_reason", "");
  if (c.contains("cpu_wait_share") && c["cpu_wait_share"].is_number()) r.cpu_wait_share = c["cpu_wait_share"];
  if (c.contains("arrival") && c["arrival"].is_object()) r.arrival = arrival_from_json(c["arrival"]);
  return r;
}

std::vector<CaseResult> cases_from_json(const json& doc) {
  std::vector<CaseResult> out;
  for (const auto& c : doc.value("cases", json::array())) out.push_back(case_from_json(c));
  return out;
}

RunSpan span_from_json(const json& doc) {
  RunSpan span;
  const json& w = doc.contains("world") ? doc["world"] : json::object();
  span.ranks = whole_value(w, "ranks", 0);
  for (const auto& n : w.value("nodes", json::array())) {
    span.hosts.push_back(n.value("name", ""));
    for (int r : whole_list<int>(n, "ranks")) span.rank_ids.push_back(r);
  }
  span.nodes = static_cast<int>(span.hosts.size());
  return span;
}

Subject subject_from_json(const json& s) {
  Subject out;
  if (!s.is_object() || !s.contains("kind") || !s["kind"].is_string() ||
      !parse_subject_kind(s["kind"].get<std::string>(), &out.kind) || out.kind == SubjectKind::World)
    return Subject::world();
  for (const auto& h : s.value("hosts", json::array()))
    if (h.is_string()) out.hosts.push_back(h.get<std::string>());
  for (const auto& r : s.value("ranks", json::array()))
    if (r.is_number_integer()) out.ranks.push_back(r.get<int>());
  return out;
}

Finding finding_from_json(const json& f) {
  Finding out;
  out.code = f.value("code", "");
  const std::string tag = f.value("tag", "");
  for (Tag t : {Tag::Pass, Tag::Fail, Tag::Warn, Tag::Info})
    if (tag_name(t) == tag) out.tag = t;
  const std::string prio = f.contains("priority") && f["priority"].is_string() ? f["priority"].get<std::string>() : "";
  for (Priority p : {Priority::P0, Priority::P1, Priority::P2})
    if (priority_name(p) == prio) out.priority = p;
  out.message = f.value("message", "");
  if (f.contains("reference") && f["reference"].is_string()) out.reference = f["reference"].get<std::string>();
  if (f.contains("subject")) out.subject = subject_from_json(f["subject"]);
  return out;
}

std::vector<Finding> findings_from_json(const json& doc) {
  std::vector<Finding> out;
  for (const auto& f : doc.value("findings", json::array())) out.push_back(finding_from_json(f));
  return out;
}

std::vector<NodeInfo> nodes_from_json(const json& doc) {
  std::vector<NodeInfo> out;
  const json& w = doc.contains("world") ? doc["world"] : json::object();
  for (const auto& n : w.value("nodes", json::array()))
    out.push_back({n.value("name", ""), whole_list<int>(n, "ranks")});
  return out;
}

json document_from_partial(std::string_view text) {
  std::istringstream in{std::string(text)};
  json doc;
  json cases = json::array();
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {  // parse_error, and out_of_range for a number past double (1e999)
      // The last line of a killed run may be cut short; anything earlier is damage.
      if (in.peek() == EOF) break;
      throw std::runtime_error(fmt::format("line {} is not JSON", line_no));
    }
    if (line_no == 1 && !j.is_object())
      throw std::runtime_error("line 1 is not a JSON object: a journal starts with its run's header");
    if (line_no == 1) doc = std::move(j);
    else if (j.contains("case")) cases.push_back(j["case"]);
  }
  doc["schema"] = kRunSchema;
  doc["cases"] = std::move(cases);
  doc["complete"] = false;
  return doc;
}

}  // namespace collbench::report
