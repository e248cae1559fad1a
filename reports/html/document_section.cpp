// What every document has: its findings and the world it ran on; and the tables under the charts.
#include <fmt/format.h>

#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"

namespace collbench::report::html {

using nlohmann::json;

namespace {

std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace

std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& summary, bool open) {
  std::string s = std::string("<details class=\"numbers\"") + (open ? " open" : "") + "><summary>" + escape(summary) + "</summary><table><thead><tr>";
  for (const auto& h : header) s += "<th>" + h + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    s += "<tr>";
    for (const auto& cell : row) s += "<td>" + cell + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table></details>";
}

std::string findings_section(const json& doc) {
  const json findings = array_at(doc, "findings");
  if (findings.empty()) return "<p>No findings.</p>";
  std::string s = "<table class=\"findings\"><thead><tr><th>tag</th><th>code</th><th>priority</th><th>evidence</th>"
                  "<th>reference</th></tr></thead><tbody>";
  for (const auto& f : findings) {
    const std::string tag = string_at(f, "tag");
    std::string lower = tag;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    s += fmt::format("<tr><td><span class=\"tag tag-{}\">[{}]</span></td><td><code>{}</code></td><td>{}</td><td>{}{}</td>"
                     "<td>{}</td></tr>",
                     escape(lower), escape(tag), escape(string_at(f, "code")),
                     escape(string_at(f, "priority")), escape(string_at(f, "message")),
                     string_at(f, "phase").empty() ? "" : " <em>(" + escape(string_at(f, "phase")) + ")</em>",
                     escape(string_at(f, "reference")));
  }
  return s + "</tbody></table>";
}

std::string world_section(const json& doc) {
  const json world = object_at(doc, "world");
  std::vector<std::vector<std::string>> rows;
  auto add = [&](const std::string& key, const json& v) {
    if (!v.is_null() && !text(v).empty()) rows.push_back({escape(key), escape(text(v))});
  };
  add("started", doc.value("started_at", json()));
  add("finished", doc.value("finished_at", json()));
  add("valid until", doc.value("valid_until", json()));
  add("tool", string_at(object_at(doc, "tool"), "version").empty() ? doc.value("tool_version", json())
                                                                   : json(string_at(object_at(doc, "tool"), "version")));
  add("ranks", world.value("ranks", doc.value("ranks", json())));
  add("backend", world.value("backend", json()));
  add("instance type", world.value("instance_type", json()));
  std::string nodes;
  const json node_list = world.contains("nodes") ? array_at(world, "nodes") : array_at(doc, "nodes");
  for (const auto& n : node_list)
    nodes += (nodes.empty() ? "" : ", ") + (n.is_object() ? string_at(n, "name") : text(n));
  add("nodes", nodes);
  const json versions = object_at(world, "versions");
  for (const auto& [k, v] : versions.items()) add(k, v);
  add("libfabric provider", string_at(object_at(doc, "provider"), "name"));
  std::string s = "<table class=\"world\"><tbody>";
  for (const auto& r : rows) s += "<tr><th>" + r[0] + "</th><td>" + r[1] + "</td></tr>";
  return s + "</tbody></table>";
}

}  // namespace collbench::report::html
