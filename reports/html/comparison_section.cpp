// Several run documents: their curves overlaid, and the comparison's verdict per case against the first.
#include <fmt/format.h>

#include <map>

#include "common/units.h"
#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"
#include "reports/run/compare.h"

namespace collbench::report::html {

using nlohmann::json;

std::string comparison_section(const std::vector<std::pair<std::string, const json*>>& runs) {
  // One chart per op and datatype (world scope, out of place): a series per document.
  std::map<std::pair<std::string, std::string>, LineChart> charts;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (const auto& c : array_at(*runs[i].second, "cases")) {
      const std::string scope = string_at(object_at(c, "group"), "scope");
      if ((!scope.empty() && scope != "world") || string_at(c, "placement") != "out_of_place")
        continue;
      const std::pair key{string_at(c, "op"), string_at(c, "dtype")};
      LineChart& chart = charts[key];
      chart.title = fmt::format("{} {} busbw, out of place, world", key.first, key.second);
      chart.y_label = "GB/s";
      if (chart.series.size() <= i) chart.series.resize(i + 1);
      chart.series[i].name = runs[i].first;
      chart.series[i].style = static_cast<int>(i);
      chart.series[i].points.push_back({number_at(c, "bytes"), number_at(c, "busbw_gbs")});
    }
  std::string out = "<section class=\"document\"><h2>Comparison</h2><p>Against the first document, " +
                    escape(runs.front().first) + ".</p>";
  for (auto& [key, chart] : charts) {
    std::erase_if(chart.series, [](const Series& s) { return s.points.empty(); });
    out += "<figure>" + render(chart) + "</figure>";
  }
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const Comparison cmp = compare_runs(*runs.front().second, *runs[i].second, std::nullopt);
    std::vector<std::vector<std::string>> rows;
    for (const auto& c : cmp.cases) {
      const std::string verdict = change_name(c.verdict);
      rows.push_back({escape(c.op), escape(c.dtype), escape(c.placement), escape(size_text(c.bytes)),
                      escape(c.group_scope), fmt::format("{:.3g}", c.base_busbw), fmt::format("{:.3g}", c.cur_busbw),
                      fmt::format("{:+.1f}%", 100 * c.rel_change),
                      c.verdict == Change::Worse ? "<strong>" + escape(verdict) + "</strong>" : escape(verdict)});
    }
    out += fmt::format("<h3>{} against {}</h3>", escape(runs[i].first), escape(runs.front().first));
    for (const auto& m : cmp.mismatches) out += "<p class=\"note\">Not alike: " + escape(m) + "</p>";
    for (const auto& v : cmp.version_changes) out += "<p class=\"note\">Version: " + escape(v) + "</p>";
    out += table({"op", "dtype", "placement", "size", "scope", "base GB/s", "this GB/s", "change", "verdict"}, rows,
                 fmt::format("verdict per case (tolerance {:.0f}%, {})", 100 * cmp.tolerance, cmp.tolerance_basis), true);
  }
  return out + "</section>";
}

}  // namespace collbench::report::html
