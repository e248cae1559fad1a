#include "reports/core/json_read.h"

#include <fmt/format.h>

#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "reports/core/json_input.h"
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
  out.clock_error_us = number_field(a, "clock_error_us", 0.0);
  return out;
}

// A member that is absent or null reads as absent, as written by versions that did not have it.
bool present(const json& obj, const char* key) { return obj.contains(key) && !obj[key].is_null(); }

const json& world_of(const json& doc) {
  static const json kNone = json::object();
  return present(object_of(doc, "the document", "a collbench document"), "world")
             ? object_of(doc["world"], "world")
             : kNone;
}

std::vector<NodeInfo> read_nodes(const json& world) {
  std::vector<NodeInfo> out;
  const json& nodes = array_field(world, "nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string where = fmt::format("world.nodes[{}]", i);
    const json& n = object_of(nodes[i], where, "a node");
    out.push_back(reading(where, [&] { return NodeInfo{string_field(n, "name"), whole_list<int>(n, "ranks")}; }));
  }
  return out;
}

}  // namespace

CaseResult case_from_json(const json& c) {
  object_of(c, "the case", "a case");
  CaseResult r;
  r.op = string_field(c, "op");
  r.dtype = string_field(c, "dtype");
  r.redop = string_field(c, "redop");
  const std::string placement = string_field(c, "placement", "out_of_place");
  if (!parse_placement(placement, &r.placement))
    throw InputError(fmt::format("case placement '{}' is unknown: a collbench run file says out_of_place or in_place",
                                 placement));
  r.root = whole_value(c, "root", -1);
  r.bytes = whole_value(c, "bytes", std::uint64_t{0});
  r.count = whole_value(c, "count", std::uint64_t{0});
  r.requested_bytes = whole_value(c, "requested_bytes", r.bytes);
  if (present(c, "group")) {
    const json& g = object_of(c["group"], "group");
    const std::string scope = string_field(g, "scope", "world");
    if (!parse_scope(scope, &r.group.scope))
      throw InputError(
          fmt::format("case group scope '{}' is unknown: a collbench run file says world, node or rail", scope));
    r.group.id = whole_value(g, "id", 0);
    r.group.ranks = whole_list<int>(g, "ranks");
  }
  if (present(c, "time_us")) {
    const json& t = object_of(c["time_us"], "time_us");
    r.time_us = {number_field(t, "median"), number_field(t, "mean"),  number_field(t, "min"),
                 number_field(t, "max"),    number_field(t, "p99"),   number_field(t, "stdev"),
                 whole_value(t, "samples", std::size_t{0})};
  }
  if (present(c, "time_us")) r.time_us.mad = number_field(c["time_us"], "mad");
  r.algbw_gbs = number_field(c, "algbw_gbs");
  r.busbw_gbs = number_field(c, "busbw_gbs");
  if (c.contains("wrong") && c["wrong"].is_number_integer()) r.wrong = c["wrong"].get<std::int64_t>();
  r.wrong_ranks = whole_list<int>(c, "wrong_ranks");
  r.stop_reason = string_field(c, "stop_reason");
  if (c.contains("cpu_wait_share") && c["cpu_wait_share"].is_number()) r.cpu_wait_share = c["cpu_wait_share"];
  if (c.contains("arrival") && c["arrival"].is_object())
    r.arrival = reading("arrival", [&] { return arrival_from_json(c["arrival"]); });
  return r;
}

std::vector<CaseResult> cases_from_json(const json& doc) {
  std::vector<CaseResult> out;
  const json& cases = array_field(object_of(doc, "the document", "a collbench document"), "cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string where = fmt::format("cases[{}]", i);
    object_of(cases[i], where, "a case");
    out.push_back(reading(where, [&] { return case_from_json(cases[i]); }));
  }
  return out;
}

RunSpan span_from_json(const json& doc) {
  RunSpan span;
  const json& w = world_of(doc);
  span.ranks = reading("world", [&] { return whole_value(w, "ranks", 0); });
  for (const auto& n : read_nodes(w)) {
    span.hosts.push_back(n.name);
    for (int r : n.ranks) span.rank_ids.push_back(r);
  }
  span.nodes = static_cast<int>(span.hosts.size());
  return span;
}

Subject subject_from_json(const json& s) {
  Subject out;
  if (!s.is_object() || !s.contains("kind") || !s["kind"].is_string() ||
      !parse_subject_kind(s["kind"].get<std::string>(), &out.kind) || out.kind == SubjectKind::World)
    return Subject::world();
  if (s.contains("hosts") && s["hosts"].is_array())
    for (const auto& h : s["hosts"])
      if (h.is_string()) out.hosts.push_back(h.get<std::string>());
  if (s.contains("ranks") && s["ranks"].is_array())
    for (const auto& r : s["ranks"])
      if (r.is_number_integer() && std::in_range<int>(r.get<std::int64_t>())) out.ranks.push_back(r.get<int>());
  return out;
}

Finding finding_from_json(const json& f) {
  object_of(f, "the finding", "a finding");
  Finding out;
  out.code = string_field(f, "code");
  const std::string tag = string_field(f, "tag");
  for (Tag t : {Tag::Pass, Tag::Fail, Tag::Warn, Tag::Info})
    if (tag_name(t) == tag) out.tag = t;
  const std::string prio = f.contains("priority") && f["priority"].is_string() ? f["priority"].get<std::string>() : "";
  for (Priority p : {Priority::P0, Priority::P1, Priority::P2})
    if (priority_name(p) == prio) out.priority = p;
  out.message = string_field(f, "message");
  if (f.contains("reference") && f["reference"].is_string()) out.reference = f["reference"].get<std::string>();
  if (f.contains("subject")) out.subject = subject_from_json(f["subject"]);
  return out;
}

std::vector<Finding> findings_from_json(const json& doc) {
  std::vector<Finding> out;
  const json& list = array_field(object_of(doc, "the document", "a collbench document"), "findings");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("findings[{}]", i);
    object_of(list[i], where, "a finding");
    out.push_back(reading(where, [&] { return finding_from_json(list[i]); }));
  }
  return out;
}

std::vector<NodeInfo> nodes_from_json(const json& doc) { return read_nodes(world_of(doc)); }

void check_document(const json& doc) {
  findings_from_json(doc);
  if (doc.contains("schema") && doc["schema"] == kRunSchema) {
    span_from_json(doc);
    cases_from_json(doc);
  }
  if (!doc.contains("phases") || !doc["phases"].is_array()) return;
  const json& phases = doc["phases"];
  for (std::size_t i = 0; i < phases.size(); ++i)
    if (phases[i].is_object() && phases[i].contains("document") && phases[i]["document"].is_object() &&
        phases[i]["document"].contains("schema"))
      reading(fmt::format("phases[{}].document", i), [&] { check_document(phases[i]["document"]); });
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
    } catch (const json::exception& e) {  // parse_error, and out_of_range for a number past double (1e999)
      // The last line of a killed run may be cut short; anything earlier is damage.
      if (in.peek() == EOF) break;
      throw InputError(fmt::format("line {} is not JSON ({})", line_no, json_error_text(e)));
    }
    if (line_no == 1 && !j.is_object())
      throw InputError(fmt::format("line 1 is {}, not a JSON object: a journal starts with its run's header", json_kind(j)));
    if (line_no == 1) doc = std::move(j);
    else if (j.contains("case")) cases.push_back(j["case"]);
  }
  doc["schema"] = kRunSchema;
  doc["cases"] = std::move(cases);
  doc["complete"] = false;
  return doc;
}

}  // namespace collbench::report
