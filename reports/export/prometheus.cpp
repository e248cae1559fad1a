#include "reports/export/prometheus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace collbench::report {

std::string prometheus_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

namespace {

// Go's strconv.ParseFloat reads what fmt's shortest form writes; integers print without ".0".
std::string sample_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", v);
}

}  // namespace

std::string prometheus_text(const MetricSet& set) {
  // Families in the order their first sample appears: documents read in order print in order.
  std::vector<const MetricDef*> families;
  for (const auto& r : set.records)
    for (const auto& [def, v] : r.values)
      if (std::find(families.begin(), families.end(), def) == families.end()) families.push_back(def);
  std::string out;
  for (const MetricDef* def : families) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", def->prom_name, def->help, def->prom_name);
    for (const auto& r : set.records)
      for (const auto& [d, v] : r.values) {
        if (d != def) continue;
        std::string labels;
        for (const auto& [k, val] : r.labels)
          labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", k, prometheus_label_value(val));
        out += fmt::format("{}{{{}}} {}\n", def->prom_name, labels, sample_value(v));
      }
  }
  return out;
}

}  // namespace collbench::report
