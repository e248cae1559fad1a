#include "reports/export/metrics.h"

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

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

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
    for (const auto& f : doc.value("findings", json::array()))
      ++counts[{text_of(f.value("phase", json())), text_of(f.value("tag", json())), text_of(f.value("code", json()))}];
    for (const auto& [key, n] : counts) {
      const auto& [phase, tag, code] = key;
      Labels labels{{"tag", tag}, {"code", code}};
      if (!phase.empty()) labels.insert(labels.begin(), {"phase", phase});
      add(std::move(labels), {{&metric::kFindings, static_cast<double>(n)}});
    }
    const json v = doc.value("verdict", json::object());
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
    const json world = doc.value("world", json::object());
    const json tool = doc.value("tool", json::object());
    add({{"version", text_of(tool.value("version", doc.value("tool_version", json())))},
         {"backend", text_of(world.value("backend", json()))},
         {"instance_type", text_of(world.value("instance_type", json()))}},
        {{&metric::kInfo, 1}});
  }

  void cases(const json& doc) {
    std::vector<std::string> host_of_rank;
    for (const auto& r : doc.value("world", json::object()).value("rank_info", json::array()))
      host_of_rank.push_back(text_of(r.value("host", json())));
    for (const auto& c : doc.value("cases", json::array())) {
      const json group = c.value("group", json::object());
      const std::string scope = text_of(group.value("scope", json("world")));
      Labels labels{{"op", text_of(c.value("op", json()))},
                    {"dtype", text_of(c.value("dtype", json()))},
                    {"redop", text_of(c.value("redop", json()))},
                    {"placement", text_of(c.value("placement", json()))},
                    {"scope", scope},
                    {"size_bytes", text_of(c.value("bytes", json()))}};
      if (scope != "world") {  // a node (or other) group: name its host, else its id
        const json ranks = group.value("ranks", json::array());
        const int first = ranks.empty() || !ranks[0].is_number_integer() ? -1 : ranks[0].get<int>();
        const bool known = first >= 0 && first < static_cast<int>(host_of_rank.size());
        labels.push_back({"node", known ? host_of_rank[first] : "group" + text_of(group.value("id", json()))});
      }
      add(std::move(labels), {{&metric::kBusBandwidth, number(c, "busbw_gbs") * 1e9},
                              {&metric::kAlgBandwidth, number(c, "algbw_gbs") * 1e9},
                              {&metric::kMedianTime, number(c.value("time_us", json::object()), "median") * 1e-6}});
    }
  }

  // A state set: one series per verdict, 1 on the node's. hunt's "straggler" is fabric's "slow".
  void node_verdict(const std::string& check, const std::string& node, std::string verdict) {
    if (verdict == "straggler") verdict = "slow";
    for (const char* v : {"healthy", "slow", "inconclusive"})
      add({{"check", check}, {"node", node}, {"verdict", v}}, {{&metric::kNodeVerdict, verdict == v ? 1.0 : 0.0}});
  }

  void hunt(const json& doc) {
    for (const auto& n : doc.value("attribution", json::object()).value("nodes", json::array())) {
      const std::string host = text_of(n.value("host", json()));
      add({{"node", host}},
          {{&metric::kNodeBusBandwidth, number(n, "score_gbs") * 1e9}, {&metric::kNodeDrop, number(n, "drop")}});
      node_verdict("pairs", host, text_of(n.value("verdict", json())));
    }
  }

  void fabric(const json& doc) {
    const json verdicts = doc.value("attribution", json::object());
    for (const char* check : {"latency", "bandwidth"}) {
      if (!verdicts.contains(check) || !verdicts[check].is_object()) continue;
      const bool latency = std::string(check) == "latency";
      for (const auto& u : verdicts[check].value("units", json::array())) {
        const std::string unit = text_of(u.value("unit", json()));
        const double score = number(u, "score");
        if (latency)
          add({{"node", unit}}, {{&metric::kNodeFabricLatency, score * 1e-6}});
        else
          add({{"node", unit}}, {{&metric::kNodeFabricBandwidth, score * 1e9}});
        node_verdict(check, unit, text_of(u.value("verdict", json())));
      }
    }
  }

  static double number(const json& o, const char* key) {
    return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : NAN;
  }

 private:
  Labels base_;
  double timestamp_s_;
  MetricSet& out_;
};

std::string command_of(const std::string& schema) {
  for (const char* c : {"run", "hunt", "fabric", "preflight"})
    if (schema == fmt::format("collbench.{}/1", c)) return c;
  return "";
}

// A preflight phase's document is `nested`: its findings and verdict are the preflight's already.
void add_one(const json& doc, const Labels& base, bool nested, MetricSet& out) {
  const std::string command = command_of(doc.value("schema", ""));
  DocumentMetrics m(base, utc_seconds(doc.value("started_at", "")), out);
  if (command == "run" || command == "hunt") m.cases(doc);
  if (command == "hunt") m.hunt(doc);
  if (command == "fabric") m.fabric(doc);
  if (command != "preflight") m.info(doc);
  if (!nested) m.verdict_and_findings(doc);
}

std::string record_key(const MetricDef& def, const Labels& labels) {
  std::string key = def.prom_name;
  for (const auto& [k, v] : labels) key += "\x1f" + k + "=" + v;
  return key;
}

}  // namespace

void add_document_metrics(const json& doc, MetricSet& out) {
  const std::string schema = doc.is_object() ? doc.value("schema", "") : "";
  const std::string command = command_of(schema);
  if (command.empty())
    throw std::invalid_argument(fmt::format(
        "schema '{}' is not a collbench run, hunt, fabric or preflight document (collbench.<command>/1)", schema));
  std::set<std::string> seen;
  for (const auto& r : out.records)
    for (const auto& [def, v] : r.values) seen.insert(record_key(*def, r.labels));
  const std::size_t first_new = out.records.size();

  add_one(doc, {{"command", command}}, false, out);
  if (command == "preflight") {
    DocumentMetrics m({{"command", command}}, utc_seconds(doc.value("started_at", "")), out);
    if (const double until = utc_seconds(doc.value("valid_until", "")); until > 0)
      m.add({}, {{&metric::kValidUntil, until}});
    for (const auto& p : doc.value("phases", json::array())) {
      const std::string phase = text_of(p.value("name", json()));
      m.add({{"phase", phase}, {"status", text_of(p.value("status", json()))}},
            {{&metric::kPhaseWall, DocumentMetrics::number(p, "wall_s")}});
      if (p.contains("document") && p["document"].is_object() && !command_of(p["document"].value("schema", "")).empty())
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
