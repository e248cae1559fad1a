#include "reports/export/metrics.h"

#include "reports/core/json_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace collbench::report {

using nlohmann::json;

namespace metric {
const MetricDef kBusBandwidth{"collbench_bus_bandwidth_bytes_per_second",
                              "Bus bandwidth of a case, as nccl-tests computes it (median iteration)", "BusBandwidth",
                              "Bytes/Second"};
const MetricDef kAlgBandwidth{"collbench_algorithm_bandwidth_bytes_per_second",
                              "Algorithm bandwidth of a case: bytes over the median iteration time", "AlgorithmBandwidth",
                              "Bytes/Second"};
const MetricDef kMedianTime{"collbench_case_median_time_seconds", "Median time of one iteration of a case",
                            "MedianTime", "Seconds"};
const MetricDef kNodeBusBandwidth{"collbench_node_bus_bandwidth_bytes_per_second",
                                  "A node's score in the hunt: the median bus bandwidth of its pairs", "NodeBusBandwidth",
                                  "Bytes/Second"};
const MetricDef kNodeDrop{"collbench_node_drop_ratio", "How far a node's score is below the cluster median (0 to 1)",
                          "NodeDrop", "None"};
const MetricDef kNodeFabricBandwidth{"collbench_node_fabric_bandwidth_bytes_per_second",
                                     "A node's fabric bandwidth: the median over its partners", "NodeFabricBandwidth",
                                     "Bytes/Second"};
const MetricDef kNodeFabricLatency{"collbench_node_fabric_latency_seconds",
                                   "A node's fabric latency: the median over its partners", "NodeFabricLatency",
                                   "Seconds"};
const MetricDef kNodeVerdict{"collbench_node_verdict",
                             "1 for the verdict a node got (healthy, slow or inconclusive), 0 for the others",
                             "NodeVerdict", "None"};
const MetricDef kFindings{"collbench_findings", "Findings of a document by tag and code", "Findings", "Count"};
const MetricDef kIssuesFound{"collbench_issues_found", "Issues found ([FAIL] and [WARN] findings)", "IssuesFound",
                             "Count"};
const MetricDef kExitCode{"collbench_exit_code", "collbench's exit code: 0 pass, 1 could not run, 2 bad input, 3 [FAIL]",
                          "ExitCode", "None"};
const MetricDef kComplete{"collbench_complete", "1 when the run measured everything it planned, else 0", "Complete",
                          "None"};
const MetricDef kInfo{"collbench_info", "Always 1: the tool version, backend and instance type as labels", "Info",
                      "None"};
const MetricDef kLastRun{"collbench_last_run_timestamp_seconds", "When the run started, seconds since the epoch",
                         "LastRunTimestamp", "Seconds"};
const MetricDef kValidUntil{"collbench_valid_until_timestamp_seconds",
                            "Until when a preflight verdict holds, seconds since the epoch", "ValidUntilTimestamp",
                            "Seconds"};
const MetricDef kPhaseWall{"collbench_phase_wall_seconds", "Wall time of a preflight phase", "PhaseWallTime",
                           "Seconds"};
}  // namespace metric

double utc_seconds(const std::string& iso) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != static_cast<int>(iso.size()))
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm));
}

namespace {

// Adds one document's records; `base` is command (and phase) for every record of it.
class DocumentMetrics {
 public:
  DocumentMetrics(const Labels& base, double timestamp_s, MetricSet& out)
      : base_(base), timestamp_s_(timestamp_s), out_(out) {}

  void add(Labels labels, std::vector<std::pair<const MetricDef*, double>> values) {
    Labels all = base_;
    // An empty value is no label (Prometheus reads it so; CloudWatch refuses empty dimensions).
    for (auto& l : labels)
      if (!l.second.empty()) all.push_back(std::move(l));
    std::erase_if(values, [](const auto& v) { return !std::isfinite(v.second); });
    if (!values.empty()) out_.records.push_back({std::move(all), std::move(values), timestamp_s_});
  }

  void verdict_and_findings(const json& doc) {
    std::map<std::tuple<std::string, std::string, std::string>, int> counts;  // phase (preflight), tag, code
    for (const auto& f : array_at(doc, "findings"))
      ++counts[{string_at(f, "phase"), string_at(f, "tag"), string_at(f, "code")}];
    for (const auto& [key, n] : counts) {
      const auto& [phase, tag, code] = key;
      Labels labels{{"tag", tag}, {"code", code}};
      if (!phase.empty()) labels.insert(labels.begin(), {"phase", phase});
      add(std::move(labels), {{&metric::kFindings, static_cast<double>(n)}});
    }
    const json v = object_at(doc, "verdict");
    std::vector<std::pair<const MetricDef*, double>> values;
    if (v.contains("issues_found") && v["issues_found"].is_number())
      values.push_back({&metric::kIssuesFound, v["issues_found"].get<double>()});
    if (v.contains("exit_code") && v["exit_code"].is_number())
      values.push_back({&metric::kExitCode, v["exit_code"].get<double>()});
    if (doc.contains("complete") && doc["complete"].is_boolean())
      values.push_back({&metric::kComplete, doc["complete"].get<bool>() ? 1.0 : 0.0});
    if (timestamp_s_ > 0) values.push_back({&metric::kLastRun, timestamp_s_});
    add({}, std::move(values));
  }

  void info(const json& doc) {
    const json world = object_at(doc, "world");
    const json tool = object_at(doc, "tool");
    const std::string version = string_at(tool, "version");
    add({{"version", version.empty() ? string_at(doc, "tool_version") : version},
         {"backend", string_at(world, "backend")},
         {"instance_type", string_at(world, "instance_type")}},
        {{&metric::kInfo, 1}});
  }

  void cases(const json& doc) {
    std::vector<std::string> host_of_rank;
    for (const auto& r : array_at(object_at(doc, "world"), "rank_info"))
      host_of_rank.push_back(string_at(r, "host"));
    for (const auto& c : array_at(doc, "cases")) {
      const json group = object_at(c, "group");
      const std::string scope = string_at(group, "scope");
      Labels labels{{"op", string_at(c, "op")},
                    {"dtype", string_at(c, "dtype")},
                    {"redop", string_at(c, "redop")},
                    {"placement", string_at(c, "placement")},
                    {"scope", scope},
                    {"size_bytes", string_at(c, "bytes")}};
      if (scope != "world") {  // a node (or other) group: name its host, else its id
        const json ranks = array_at(group, "ranks");
        const int first = ranks.empty() || !ranks[0].is_number_integer() ? -1 : ranks[0].get<int>();
        const bool known = first >= 0 && first < static_cast<int>(host_of_rank.size());
        labels.push_back({"node", known ? host_of_rank[first] : "group" + string_at(group, "id")});
      }
      add(std::move(labels), {{&metric::kBusBandwidth, number_at(c, "busbw_gbs") * 1e9},
                              {&metric::kAlgBandwidth, number_at(c, "algbw_gbs") * 1e9},
                              {&metric::kMedianTime, number_at(object_at(c, "time_us"), "median") * 1e-6}});
    }
  }

  // A state set: one series per verdict, 1 on the node's. hunt's "straggler" is fabric's "slow".
  void node_verdict(const std::string& check, const std::string& node, std::string verdict) {
    if (verdict == "straggler") verdict = "slow";
    for (const char* v : {"healthy", "slow", "inconclusive"})
      add({{"check", check}, {"node", node}, {"verdict", v}}, {{&metric::kNodeVerdict, verdict == v ? 1.0 : 0.0}});
  }

  void hunt(const json& doc) {
    for (const auto& n : array_at(object_at(doc, "attribution"), "nodes")) {
      const std::string host = string_at(n, "host");
      add({{"node", host}},
          {{&metric::kNodeBusBandwidth, number_at(n, "score_gbs") * 1e9}, {&metric::kNodeDrop, number_at(n, "drop")}});
      node_verdict("pairs", host, string_at(n, "verdict"));
    }
  }

  void fabric(const json& doc) {
    const json verdicts = object_at(doc, "attribution");
    for (const char* check : {"latency", "bandwidth"}) {
      if (!verdicts.contains(check) || !verdicts[check].is_object()) continue;
      const bool latency = std::string(check) == "latency";
      for (const auto& u : array_at(verdicts[check], "units")) {
        const std::string unit = string_at(u, "unit");
        const double score = number_at(u, "score");
        if (latency)
          add({{"node", unit}}, {{&metric::kNodeFabricLatency, score * 1e-6}});
        else
          add({{"node", unit}}, {{&metric::kNodeFabricBandwidth, score * 1e9}});
        node_verdict(check, unit, string_at(u, "verdict"));
      }
    }
  }

 private:
  Labels base_;
  double timestamp_s_;
  MetricSet& out_;
};

std::string command_of(const std::string& schema) {
  for (const char* c : {"run", "hunt", "fabric", "preflight", "inspector"})
    if (schema == fmt::format("collbench.{}/1", c)) return c;
  return "";
}

// A preflight phase's document is `nested`: its findings and verdict are the preflight's already.
void add_one(const json& doc, const Labels& base, bool nested, MetricSet& out) {
  const std::string command = command_of(string_at(doc, "schema"));
  DocumentMetrics m(base, utc_seconds(string_at(doc, "started_at")), out);
  if (command == "run" || command == "hunt") m.cases(doc);
  if (command == "hunt") m.hunt(doc);
  if (command == "fabric") m.fabric(doc);
  // An Inspector document (analyze on a job's logs) has no world, tool or cases: its findings and
  // verdict only.
  if (command != "preflight" && command != "inspector") m.info(doc);
  if (!nested) m.verdict_and_findings(doc);
}

std::string record_key(const MetricDef& def, const Labels& labels) {
  std::string key = def.prom_name;
  for (const auto& [k, v] : labels) key += "\x1f" + k + "=" + v;
  return key;
}

}  // namespace

void add_document_metrics(const json& doc, MetricSet& out) {
  const std::string schema = string_at(doc, "schema");
  const std::string command = command_of(schema);
  if (command.empty())
    throw std::invalid_argument(fmt::format(
        "schema '{}' is not a collbench run, hunt, fabric, preflight or inspector document (collbench.<command>/1)", schema));
  std::set<std::string> seen;
  for (const auto& r : out.records)
    for (const auto& [def, v] : r.values) seen.insert(record_key(*def, r.labels));
  const std::size_t first_new = out.records.size();

  add_one(doc, {{"command", command}}, false, out);
  if (command == "preflight") {
    DocumentMetrics m({{"command", command}}, utc_seconds(string_at(doc, "started_at")), out);
    if (const double until = utc_seconds(string_at(doc, "valid_until")); until > 0)
      m.add({}, {{&metric::kValidUntil, until}});
    for (const auto& p : array_at(doc, "phases")) {
      const std::string phase = string_at(p, "name");
      m.add({{"phase", phase}, {"status", string_at(p, "status")}},
            {{&metric::kPhaseWall, number_at(p, "wall_s")}});
      if (p.contains("document") && p["document"].is_object() && !command_of(string_at(p["document"], "schema")).empty())
        add_one(p["document"], {{"command", command}, {"phase", phase}}, true, out);
    }
  }
  for (std::size_t i = first_new; i < out.records.size(); ++i)
    for (const auto& [def, v] : out.records[i].values)
      if (!seen.insert(record_key(*def, out.records[i].labels)).second)
        throw std::invalid_argument(fmt::format(
            "it repeats {} for labels already given by an earlier document of the same command; give one document "
            "per command",
            def->prom_name));
}

}  // namespace collbench::report
