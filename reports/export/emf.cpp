#include "reports/export/emf.h"

#include <nlohmann/json.hpp>

namespace collbench::report {

using nlohmann::json;

std::string emf_lines(const MetricSet& set, const std::string& cloudwatch_namespace, long long now_ms) {
  std::string out;
  for (const auto& r : set.records) {
    json line = json::object();
    json dimensions = json::array();
    for (const auto& [k, v] : r.labels) {
      line[k] = v;  // dimension values are strings
      dimensions.push_back(k);
    }
    json metrics = json::array();
    for (const auto& [def, v] : r.values) {
      line[def->emf_name] = v;
      metrics.push_back({{"Name", def->emf_name}, {"Unit", def->emf_unit}});
    }
    const long long ts = r.timestamp_s > 0 ? static_cast<long long>(r.timestamp_s) * 1000 : now_ms;
    line["_aws"] = {{"Timestamp", ts},
                    {"CloudWatchMetrics",
                     json::array({{{"Namespace", cloudwatch_namespace},
                                   {"Dimensions", json::array({dimensions})},
                                   {"Metrics", metrics}}})}};
    out += line.dump() + "\n";
  }
  return out;
}

}  // namespace collbench::report
