#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "bench/errors.h"
#include "launcher/commands/commands.h"
#include "launcher/inputs/run_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_input.h"
#include "reports/core/json_read.h"
#include "reports/thresholds/thresholds.h"

namespace collbench {
namespace {

using nlohmann::json;

// Per op, the largest measured size, out-of-place preferred: the bandwidth-bound end of the sweep.
std::map<std::string, report::CaseResult> reference_cases(const std::vector<report::CaseResult>& cases) {
  std::map<std::string, report::CaseResult> best;
  for (const auto& c : cases) {
    auto it = best.find(c.op);
    const bool better = it == best.end() || c.bytes > it->second.bytes ||
                        (c.bytes == it->second.bytes && c.placement == Placement::OutOfPlace);
    if (better && c.busbw_gbs > 0) best[c.op] = c;
  }
  return best;
}

}  // namespace

int derive_thresholds_command(const Command& cmd) {
  const json doc = read_run_json(cmd.derive.run);
  std::string instance = cmd.verdict.instance_type;
  std::string device_name;
  report::RunSpan span;
  std::vector<report::CaseResult> cases;
  reading_file(cmd.derive.run, "rerun collbench or fix the file", [&] {
    span = report::span_from_json(doc);
    cases = report::cases_from_json(doc);
    const json& world = doc.contains("world") && doc["world"].is_object() ? doc["world"] : json::object();
    if (instance.empty()) instance = report::string_field(world, "instance_type");
    const json& ranks = report::array_field(world, "rank_info");
    if (!ranks.empty()) device_name = report::string_field(report::object_of(ranks[0], "world.rank_info[0]"), "device_name");
  });
  if (instance.empty())
    throw UsageError(fmt::format("'{}' does not record the instance type; pass --instance-type", cmd.derive.run));
  const double m = cmd.derive.margin;
  const std::string origin =
      fmt::format("collbench run {} ({}), started {}", cmd.derive.run,
                  doc.contains("complete") && doc["complete"] == false ? "incomplete" : "complete",
                  doc.contains("started_at") && doc["started_at"].is_string() ? doc["started_at"].get<std::string>() : "?");
  json rows = json::array();
  for (const auto& [op, c] : reference_cases(cases)) {
    json row = {{"op", op},
                {"scope", span.nodes == 1 ? "node" : "world"},
                {"bytes", c.bytes},
                {"fail_below", c.busbw_gbs * (1 - m)},
                {"warn_below", c.busbw_gbs * (1 - m / 2)},
                {"basis", "derived"},
                {"source", fmt::format("{}: {} busbw {:.2f} GB/s at {} B on {} node(s); fail {:g}% and warn {:g}% "
                                       "below it (--margin)",
                                       origin, placement_name(c.placement), c.busbw_gbs, c.bytes, span.nodes, 100 * m, 50 * m)}};
    if (span.nodes > 1) {
      row["min_nodes"] = span.nodes;
      row["max_nodes"] = span.nodes;
    }
    rows.push_back(row);
  }
  if (rows.empty()) throw UsageError(fmt::format("'{}' has no case with a bandwidth to derive from", cmd.derive.run));
  const json out = {
      {"schema", "collbench.thresholds/1"},
      {"instance_type", instance},
      {"hardware",
       {{"gpus", span.nodes > 0 ? span.ranks / span.nodes : 0},
        {"gpu", device_name},
        {"efa_devices", 0},
        {"efa_gbps", 0},
        {"source", "from " + origin + "; efa_devices and efa_gbps are not measured by a run: fill them in"}}},
      {"thresholds", rows},
  };
  const std::string text = out.dump(2) + "\n";
  if (cmd.derive.output.empty()) {
    std::fputs(text.c_str(), stdout);
  } else {
    report::write_file_atomically(cmd.derive.output, text);
    report::load_thresholds_file(cmd.derive.output);  // what we write must load
    std::fprintf(stderr, "collbench: wrote %s (%zu rows)\n", cmd.derive.output.c_str(), rows.size());
  }
  return kExitOk;
}

}  // namespace collbench
