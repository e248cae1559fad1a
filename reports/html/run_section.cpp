// A run document's charts: busbw curves per op and scope, and per-rank / per-node median times.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "common/units.h"
#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"

namespace collbench::report::html {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxNodeSeries = 8;

std::string fixed(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : "–"; }

// The thresholds' lines for one op and scope on `nodes` nodes.
// A world sweep on one node is judged by the node rows, as the verdicts do.
std::vector<HorizontalLine> threshold_lines(const std::optional<InstanceThresholds>& t, const std::string& op,
                                            const std::string& scope, int nodes) {
  std::vector<HorizontalLine> lines;
  if (!t) return lines;
  const std::string row_scope = scope == "world" && nodes == 1 ? "node" : scope;
  for (const auto& r : t->rows) {
    if (r.op != op || r.scope != row_scope) continue;
    if (row_scope == "world" && (nodes < r.min_nodes || (r.max_nodes > 0 && nodes > r.max_nodes))) continue;
    const std::string at = fmt::format(" GB/s at {} ({} {} threshold)", size_text(r.bytes), t->instance_type, r.basis);
    lines.push_back({r.fail_below, "fail below " + fixed(r.fail_below) + at, "fail"});
    lines.push_back({r.warn_below, "warn below " + fixed(r.warn_below) + at, "warn"});
  }
  return lines;
}

struct CurveKey {
  std::string op, dtype, scope;
  auto operator<=>(const CurveKey&) const = default;
};

std::string curves(const json& doc, const std::optional<InstanceThresholds>& thresholds) {
  std::vector<std::string> host_of_rank;
  for (const auto& r : array_at(object_at(doc, "world"), "rank_info"))
    host_of_rank.push_back(string_at(r, "host"));
  const int nodes = static_cast<int>(array_at(object_at(doc, "world"), "nodes").size());
  // Per op, datatype and scope: one series per placement, or per node (and placement) for node scope.
  std::map<CurveKey, std::map<std::string, Series>> groups;
  for (const auto& c : array_at(doc, "cases")) {
    const json group = object_at(c, "group");
    const CurveKey key{string_at(c, "op"), string_at(c, "dtype"), string_at(group, "scope").empty() ? "world" : string_at(group, "scope")};
    std::string name = string_at(c, "placement");
    if (key.scope != "world") {
      const json ranks = array_at(group, "ranks");
      const int first = ranks.empty() || !ranks[0].is_number_integer() ? -1 : ranks[0].get<int>();
      name = (first >= 0 && first < static_cast<int>(host_of_rank.size()) ? host_of_rank[first]
                                                                           : "group " + string_at(group, "id")) +
             " " + name;
    }
    Series& s = groups[key][name];
    s.name = name;
    s.points.push_back({number_at(c, "bytes"), number_at(c, "busbw_gbs")});
  }
  std::string out;
  for (auto& [key, by_name] : groups) {
    LineChart chart{fmt::format("{} {} busbw, {} scope", key.op, key.dtype, key.scope), "GB/s", {},
                    threshold_lines(thresholds, key.op, key.scope, std::max(nodes, 1))};
    std::vector<std::string> header{"size"};
    std::map<double, std::vector<std::string>> rows;
    // Out of place first (the placement nccl-tests reports first), then in place, each by name.
    std::vector<Series*> order;
    for (auto& [name, s] : by_name) order.push_back(&s);
    std::stable_sort(order.begin(), order.end(), [](const Series* a, const Series* b) {
      return (a->name.find("in_place") == std::string::npos) > (b->name.find("in_place") == std::string::npos);
    });
    int style = 0;
    for (Series* sp : order) {
      Series& s = *sp;
      const std::string& name = s.name;
      if (chart.series.size() == kMaxNodeSeries) break;
      s.style = style++;
      header.push_back(escape(name));
      for (const auto& [x, y] : s.points) {
        auto& row = rows[x];
        row.resize(header.size() - 1, "–");
        row.back() = fixed(y);
      }
      chart.series.push_back(s);
    }
    // A threshold far above every point would flatten the curve: it is named below instead of drawn.
    double peak = 0;
    for (const auto& s : chart.series)
      for (const auto& [x, y] : s.points) peak = std::max(peak, std::isfinite(y) ? y : 0);
    std::vector<HorizontalLine> off_scale;
    std::erase_if(chart.lines, [&](const HorizontalLine& l) {
      const bool far = l.value > 3 * peak;
      if (far) off_scale.push_back(l);
      return far;
    });
    out += "<figure>" + render(chart);
    if (by_name.size() > kMaxNodeSeries)
      out += fmt::format("<figcaption>{} of {} series drawn.</figcaption>", kMaxNodeSeries, by_name.size());
    out += "</figure>";
    std::vector<std::vector<std::string>> table_rows;
    for (auto& [bytes, cells] : rows) {
      cells.resize(header.size() - 1, "–");
      std::vector<std::string> row{escape(size_text(whole_bytes(bytes)))};
      row.insert(row.end(), cells.begin(), cells.end());
      table_rows.push_back(std::move(row));
    }
    out += table(header, table_rows, "busbw (GB/s) by size");
    for (const auto& l : chart.lines) out += "<p class=\"note\">Threshold: " + escape(l.label) + "</p>";
    for (const auto& l : off_scale)
      out += "<p class=\"note\">Threshold, off this chart (over 3x its highest point): " + escape(l.label) + "</p>";
  }
  return out;
}

// Each op's largest world case (out of place): its ranks' and nodes' median times.
std::string spread(const json& doc) {
  std::map<std::string, const json*> largest;  // into `cases`, which outlives it
  const json cases = array_at(doc, "cases");
  for (const auto& c : cases) {
    if (string_at(object_at(c, "group"), "scope") != "world" || string_at(c, "placement") != "out_of_place") continue;
    const json*& best = largest[string_at(c, "op")];
    if (!best || number_at(c, "bytes") > number_at(*best, "bytes")) best = &c;
  }
  std::string out;
  for (const auto& [op, c] : largest) {
    const json times = array_at(*c, "rank_median_us");
    const json ranks = array_at(object_at(*c, "group"), "ranks");
    if (times.size() < 2) continue;
    std::vector<double> sorted;
    for (const auto& t : times) sorted.push_back(t.is_number() ? t.get<double>() : NAN);
    std::vector<double> finite;
    std::copy_if(sorted.begin(), sorted.end(), std::back_inserter(finite), [](double v) { return std::isfinite(v); });
    std::sort(finite.begin(), finite.end());
    const double median = finite.empty() ? NAN : finite[finite.size() / 2];
    const std::string size = size_text(bytes_at(*c, "bytes"));
    BarChart ranks_chart{fmt::format("{} at {}: median time per rank (▲ over 1.25x the median)", op, size), "µs", {}};
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i = 0; i < times.size(); ++i) {
      const std::string rank = i < ranks.size() ? ranks[i].dump() : std::to_string(i);
      const double v = sorted[i];
      const bool slow = std::isfinite(v) && v > 1.25 * median;
      ranks_chart.bars.push_back({"r" + rank, v, slow});
      rows.push_back({rank, fixed(v), slow ? "slow" : ""});
    }
    out += "<figure>" + render(ranks_chart) + "</figure>" + table({"rank", "median µs", ""}, rows, "time per rank");
    const json per_node = array_at(*c, "node_median_us");
    if (per_node.size() < 2) continue;
    BarChart nodes_chart{fmt::format("{} at {}: median time per node", op, size), "µs", {}};
    std::vector<std::vector<std::string>> node_rows;
    for (const auto& n : per_node) {
      nodes_chart.bars.push_back({string_at(n, "node"), number_at(n, "median_us"), number_at(n, "median_us") > 1.25 * median});
      node_rows.push_back({escape(string_at(n, "node")), fixed(number_at(n, "median_us"))});
    }
    out += "<figure>" + render(nodes_chart) + "</figure>" + table({"node", "median µs"}, node_rows, "time per node");
  }
  return out;
}

}  // namespace

std::string run_section(const json& doc, const std::optional<InstanceThresholds>& thresholds) {
  if (array_at(doc, "cases").empty()) return "<p>No cases were measured.</p>";
  return "<h3>Bus bandwidth</h3>" + curves(doc, thresholds) + "<h3>Time per rank and node</h3>" + spread(doc);
}

}  // namespace collbench::report::html
