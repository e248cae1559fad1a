// The CloudWatch embedded metric format's rules, field by field, as a checker the tests share:
// https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
// (root object with `_aws`; Timestamp in milliseconds; MetricDirective: Namespace, Dimensions as
// arrays of at most 30 keys, Metrics of at most 100 definitions with Name and a StandardUnit; every
// referenced dimension a string member of the root, every metric a number or an array of at most
// 100 numbers; an event of at most 1 MB).
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace collbench::test {

// Every rule one line of EMF breaks; empty when it follows the specification.
inline std::vector<std::string> emf_problems(const std::string& line) {
  static const std::set<std::string> kUnits = {
      "Seconds",          "Microseconds",      "Milliseconds",      "Bytes",            "Kilobytes",
      "Megabytes",        "Gigabytes",         "Terabytes",         "Bits",             "Kilobits",
      "Megabits",         "Gigabits",          "Terabits",          "Percent",          "Count",
      "Bytes/Second",     "Kilobytes/Second",  "Megabytes/Second",  "Gigabytes/Second", "Terabytes/Second",
      "Bits/Second",      "Kilobits/Second",   "Megabits/Second",   "Gigabits/Second",  "Terabits/Second",
      "Count/Second",     "None"};
  std::vector<std::string> bad;
  if (line.size() > 1024 * 1024) bad.push_back("event over 1 MB");
  const nlohmann::json root = nlohmann::json::parse(line, nullptr, false);
  if (!root.is_object()) return {"not a JSON object"};
  if (!root.contains("_aws") || !root["_aws"].is_object()) return {"no _aws object"};
  const auto& aws = root["_aws"];
  if (!aws.contains("Timestamp") || !aws["Timestamp"].is_number_integer() || aws["Timestamp"].get<long long>() <= 0)
    bad.push_back("_aws.Timestamp is not a positive integer (milliseconds since the epoch)");
  else if (aws["Timestamp"].get<long long>() < 1000000000000LL)
    bad.push_back("_aws.Timestamp looks like seconds, not milliseconds");
  if (!aws.contains("CloudWatchMetrics") || !aws["CloudWatchMetrics"].is_array() || aws["CloudWatchMetrics"].empty())
    return bad.push_back("_aws.CloudWatchMetrics is not a non-empty array"), bad;
  for (const auto& d : aws["CloudWatchMetrics"]) {
    if (!d.is_object()) {
      bad.push_back("a MetricDirective is not an object");
      continue;
    }
    if (!d.contains("Namespace") || !d["Namespace"].is_string() || d["Namespace"].get<std::string>().empty() ||
        d["Namespace"].get<std::string>().size() > 255)
      bad.push_back("Namespace is not a string of 1 to 255 characters");
    if (!d.contains("Dimensions") || !d["Dimensions"].is_array()) bad.push_back("Dimensions is not an array");
    else
      for (const auto& set : d["Dimensions"]) {
        if (!set.is_array()) {
          bad.push_back("a DimensionSet is not an array");
          continue;
        }
        if (set.size() > 30) bad.push_back("a DimensionSet has more than 30 keys");
        for (const auto& key : set) {
          if (!key.is_string()) {
            bad.push_back("a dimension key is not a string");
            continue;
          }
          const std::string k = key.get<std::string>();
          if (!root.contains(k) || !root[k].is_string()) bad.push_back("dimension '" + k + "' has no string member");
          else if (root[k].get<std::string>().empty() || root[k].get<std::string>().size() > 1024)
            bad.push_back("dimension '" + k + "' is empty or over 1024 characters");
        }
      }
    if (!d.contains("Metrics") || !d["Metrics"].is_array()) {
      bad.push_back("Metrics is not an array");
      continue;
    }
    if (d["Metrics"].size() > 100) bad.push_back("more than 100 MetricDefinitions");
    for (const auto& m : d["Metrics"]) {
      if (!m.is_object() || !m.contains("Name") || !m["Name"].is_string()) {
        bad.push_back("a MetricDefinition has no Name string");
        continue;
      }
      const std::string name = m["Name"].get<std::string>();
      if (m.contains("Unit") && (!m["Unit"].is_string() || !kUnits.count(m["Unit"].get<std::string>())))
        bad.push_back("metric '" + name + "' has a Unit that is not a CloudWatch StandardUnit");
      if (m.contains("StorageResolution") && m["StorageResolution"] != 1 && m["StorageResolution"] != 60)
        bad.push_back("metric '" + name + "' has a StorageResolution other than 1 or 60");
      const bool number = root.contains(name) && root[name].is_number();
      const bool numbers = root.contains(name) && root[name].is_array() && root[name].size() <= 100 &&
                           std::all_of(root[name].begin(), root[name].end(), [](const auto& v) { return v.is_number(); });
      if (!number && !numbers) bad.push_back("metric '" + name + "' has no number member");
    }
  }
  return bad;
}

}  // namespace collbench::test
