// collbench's documents as metrics: one typed set that the Prometheus and CloudWatch printers both
// render, so the two say the same thing. A record is one subject (a case, a node, a finding code)
// with its labels and the values measured for it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace collbench::report {

// What a value is: its Prometheus family (base units, as Prometheus' naming asks) and its
// CloudWatch name and unit (one of CloudWatch's StandardUnit values).
struct MetricDef {
  const char* prom_name;
  const char* help;
  const char* emf_name;
  const char* emf_unit;
};

namespace metric {
extern const MetricDef kBusBandwidth, kAlgBandwidth, kMedianTime;                   // per case
extern const MetricDef kNodeBusBandwidth, kNodeDrop;                                // hunt, per node
extern const MetricDef kNodeFabricBandwidth, kNodeFabricLatency;                    // fabric, per node
extern const MetricDef kNodeVerdict;                                                // hunt and fabric
extern const MetricDef kFindings, kIssuesFound, kExitCode, kComplete, kInfo;        // per document
extern const MetricDef kLastRun, kValidUntil, kPhaseWall;
}  // namespace metric

using Labels = std::vector<std::pair<std::string, std::string>>;  // in the order they print

struct MetricRecord {
  Labels labels;
  std::vector<std::pair<const MetricDef*, double>> values;
  double timestamp_s = 0;  // the document's start, seconds since the epoch; 0 when it has none
};

struct MetricSet {
  std::vector<MetricRecord> records;
};

// Adds a collbench document's metrics: a run (also analyze's), hunt, fabric or preflight document
// (its phases' documents with a `phase` label), or an Inspector one (analyze on NCCL Inspector
// logs: its findings and verdict, labelled command="inspector"). Throws std::invalid_argument naming what is wrong
// when the document is not one of these, or when a record would repeat one already in `out` (two
// documents of the same command: give one per command).
void add_document_metrics(const nlohmann::json& doc, MetricSet& out);

// "2026-12-05T02:45:52Z" as seconds since the epoch; 0 for anything else.
double utc_seconds(const std::string& iso);

}  // namespace collbench::report
