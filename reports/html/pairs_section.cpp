// A hunt's and a fabric's pair matrices as heatmaps, with the nodes and links they name marked.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"
#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"

namespace collbench::report::html {

using nlohmann::json;

namespace {

std::string fixed(const json& v) { return v.is_number() ? fmt::format("{:.3g}", v.get<double>()) : "–"; }

std::vector<std::vector<std::optional<double>>> matrix(const json& values) {
  std::vector<std::vector<std::optional<double>>> m;
  for (const auto& row : values.is_array() ? values : json::array()) {
    auto& r = m.emplace_back();
    for (const auto& v : row) r.push_back(v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt);
  }
  return m;
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

// The verdict table under a heatmap: each unit, its score and verdict, slow ones first.
std::string verdict_table(const json& units, const char* name_key, const char* score_key, const std::string& unit) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& u : units) {
    const std::string verdict = string_at(u, "verdict");
    rows.push_back({escape(string_at(u, name_key)), fixed(u.value(score_key, json())),
                    verdict == "healthy" ? verdict : "<strong>" + escape(verdict) + "</strong>", escape(string_at(u, "reason"))});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return (a[2].rfind("<strong>", 0) == 0) > (b[2].rfind("<strong>", 0) == 0);
  });
  return table({"node", "score (" + escape(unit) + ")", "verdict", "why"}, rows, "verdict per node");
}

}  // namespace

std::string hunt_section(const json& doc) {
  const json a = object_at(doc, "attribution");
  Heatmap map;
  for (const auto& h : array_at(a, "hosts")) map.names.push_back(h.is_string() ? h.get<std::string>() : "");
  const json hunt = object_at(doc, "hunt");
  map.title = fmt::format("pair {} busbw at {} (GB/s)", string_at(hunt, "op"),
                          size_text(bytes_at(hunt, "bytes")));
  map.value_label = "GB/s";
  map.values = matrix(a.value("matrix_gbs", json()));
  for (const auto& n : array_at(a, "nodes"))
    if (string_at(n, "verdict") == "straggler" && std::isfinite(number_at(n, "node")))
      map.marked_names.push_back(static_cast<int>(number_at(n, "node")));
  for (const auto& l : array_at(a, "slow_links")) {
    const json nodes = array_at(l, "nodes");
    if (nodes.size() == 2 && nodes[0].is_number_integer() && nodes[1].is_number_integer())
      map.marked_cells.push_back({nodes[0].get<int>(), nodes[1].get<int>()});
  }
  return "<h3>Pairs</h3><figure>" + render(map) + "<figcaption>▲ a straggler; outlined: a slow link.</figcaption></figure>" +
         verdict_table(array_at(a, "nodes"), "host", "score_gbs", "GB/s");
}

std::string fabric_section(const json& doc) {
  std::vector<std::string> names;
  for (const auto& u : array_at(object_at(doc, "world"), "units")) names.push_back(string_at(u, "name"));
  const json matrices = object_at(doc, "matrices");
  const json verdicts = object_at(doc, "attribution");
  std::string out = "<h3>Fabric pairs</h3>";
  for (const auto& [key, check, higher] : {std::tuple{"latency_us", "latency", false},
                                           std::tuple{"bandwidth_gbs", "bandwidth", true}}) {
    const json m = matrices.value(key, json());
    if (!m.is_object()) continue;
    const json v = verdicts.value(check, json());
    Heatmap map;
    map.names = names;
    map.higher_is_better = higher;
    map.value_label = higher ? "GB/s" : "µs";
    map.title = fmt::format("{} at {} ({})", check, size_text(bytes_at(m, "bytes")), map.value_label);
    map.values = matrix(m.value("values", json()));
    if (v.is_object()) {
      for (const auto& u : array_at(v, "units"))
        if (string_at(u, "verdict") == "slow") map.marked_names.push_back(index_of(names, string_at(u, "unit")));
      for (const auto& l : array_at(v, "slow_links")) {
        const int a = index_of(names, string_at(l, "a")), b = index_of(names, string_at(l, "b"));
        if (a >= 0 && b >= 0) map.marked_cells.push_back({a, b});
      }
    }
    std::erase(map.marked_names, -1);
    out += "<figure>" + render(map) + "<figcaption>▲ a slow node; outlined: a slow link.</figcaption></figure>";
    if (v.is_object()) out += verdict_table(array_at(v, "units"), "unit", "score", map.value_label);
  }
  return out;
}

}  // namespace collbench::report::html
