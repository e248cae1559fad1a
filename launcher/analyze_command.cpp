#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/errors.h"
#include "launcher/commands.h"
#include "launcher/run_json.h"
#include "launcher/verdicts.h"
#include "reports/analyze_input.h"
#include "reports/curve_verdicts.h"
#include "reports/instance_types.h"
#include "reports/journal.h"
#include "reports/judged.h"
#include "reports/json_read.h"
#include "reports/nccl_log.h"
#include "reports/result_verdicts.h"
#include "reports/summary.h"

namespace collbench {
namespace {

using report::Finding;
using report::Priority;
using report::Tag;

struct FileVerdict {
  std::string header;  // what was read, for the person
  std::vector<Finding> findings;
};

bool has_nccl_log(const std::string& text) {
  return text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos;
}

// Lines starting "#@" annotate the published outputs kept as test fixtures; they are not output.
std::string without_fixture_metadata(const std::string& text) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    end = end == std::string::npos ? text.size() : end + 1;
    if (text.compare(pos, 2, "#@") != 0) out.append(text, pos, end - pos);
    pos = end;
  }
  return out;
}

// Without host lines, the node count follows from the ranks and the GPUs of the instance type, one
// rank per GPU as nccl-tests runs under mpirun; said in the notes, with what it means at 1 node.
void infer_nodes_from_gpus(report::ExternalResults& r, const std::optional<report::InstanceThresholds>& t,
                           const std::string& instance) {
  if (r.span.nodes > 0 || r.span.ranks <= 0 || !t || t->hardware.gpus <= 0) return;
  const int gpus = t->hardware.gpus;
  r.span.nodes = (r.span.ranks + gpus - 1) / gpus;
  r.notes.push_back(fmt::format("node count {} inferred from {} ranks and the {} GPUs of {} (one rank per GPU); pass "
                                "--nodes if the run placed them otherwise",
                                r.span.nodes, r.span.ranks, gpus, instance));
  if (r.span.nodes == 1)
    r.notes.push_back(fmt::format("{} ranks fit on one {}: this run never crossed the network, whatever it was "
                                  "called; only single-node thresholds apply",
                                  r.span.ranks, instance));
  std::erase_if(r.notes, [](const std::string& n) { return n.starts_with("node count unknown"); });
}

// Reads one file in whichever format it is, and judges it.
FileVerdict analyze_file(const std::string& path, const Command& cmd) {
  const std::string text = without_fixture_metadata(read_text_file(path));
  const std::string name = std::filesystem::path(path).filename().string();
  const std::string instance = resolve_instance_type(cmd.verdict, "");
  const report::ResultHints hints{cmd.analyze.nodes, cmd.analyze.op};

  report::ExternalResults r;
  std::vector<report::NodeInfo> nodes;  // which host each rank ran on, where the file says
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  bool partial = false;
  std::string backend;  // collbench's own results say which; empty for the rest
  std::string incomplete;  // non-empty: how the input shows that it ended before its sweep did
  if (doc.is_discarded()) {  // JSON lines: a journal of a run that did not finish?
    const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
    partial = first.is_object() && first.value("schema", "") == report::kPartialSchema;
    if (partial) doc = read_run_json(path);
  }
  try {
    if (partial || (doc.is_object() && doc.value("schema", "") == report::kRunSchema)) {
      r.format = partial ? "collbench partial journal" : "collbench json";
      r.cases = report::cases_from_json(doc);
      r.span = report::span_from_json(doc);
      nodes = report::nodes_from_json(doc);
      if (doc.contains("world")) backend = doc["world"].value("backend", "");
      if (cmd.analyze.nodes > 0 && cmd.analyze.nodes != r.span.nodes)
        throw std::invalid_argument(fmt::format("--nodes {} contradicts the run, which names {} node(s); drop --nodes",
                                                cmd.analyze.nodes, r.span.nodes));
      if (partial) incomplete = "the file is the journal of a run that did not finish (.partial)";
      else if (!doc.value("complete", true))
        incomplete = "the run ended early" + (doc.contains("error") && doc["error"].is_string()
                                                  ? ": " + doc["error"].get<std::string>()
                                                  : std::string(" (complete: false)"));
    } else if (doc.is_object() && doc.contains("results")) {
      r = report::from_nccl_tests_json(doc, name, hints);
    } else {
      r = report::from_nccl_tests_text(text, name, hints);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("'{}': {}", path, e.what()));
  }
  const auto thresholds = thresholds_for(cmd.verdict, instance);
  infer_nodes_from_gpus(r, thresholds, instance);

  FileVerdict v;
  v.header = fmt::format("# {}: {}, {} cases, {} ranks on {} node(s)", path, r.format, r.cases.size(), r.span.ranks,
                         r.span.nodes == 0 ? std::string("?") : std::to_string(r.span.nodes));
  for (const auto& note : r.notes) v.header += "\n#   note: " + note;
  for (const auto& m : r.malformed)
    v.findings.push_back({"MALFORMED_LINE", Tag::Warn, Priority::P2,
                          fmt::format("{} line {} looks like a measurement but could not be read: '{}'", path, m.line,
                                      m.text),
                          "", report::Subject::world()});
  if (!r.cases.empty()) {
    for (auto& f : report::result_findings(r.cases, nodes)) v.findings.push_back(std::move(f));
    if (report::curve_rule_applies(backend))
      for (auto& f : report::curve_dip_findings(r.cases)) v.findings.push_back(std::move(f));
    if (auto f = report::single_rank_finding(r.span.ranks)) v.findings.push_back(std::move(*f));
    if (r.span.nodes == 0)
      v.findings.push_back(report::thresholds_skipped("the node count is unknown; pass --nodes"));
    else
      for (auto& f : threshold_findings(cmd.verdict, instance, thresholds, r.cases, r.span)) v.findings.push_back(std::move(f));
    if (!incomplete.empty()) v.findings.push_back(report::incomplete_input_finding(incomplete));
    if (auto f = report::implausible_values_finding(r.cases)) {
      v.findings = report::without_passes(std::move(v.findings));
      v.findings.push_back(std::move(*f));
    }
  }
  if (has_nccl_log(text)) {
    const auto facts = report::parse_nccl_log(text);
    for (auto& f : report::nccl_log_findings({{0, facts}}, report::efa_capable(instance))) {
      f.subject.ranks.clear();  // rank 0 stands for the whole file: which rank or host is not known
      v.findings.push_back(std::move(f));
    }
  }
  if (r.cases.empty() && !has_nccl_log(text))
    throw UsageError(fmt::format("'{}': no nccl-tests table, collbench result or NCCL log found in it", path));
  return v;
}

}  // namespace

int analyze_command(const Command& cmd) {
  const bool color = use_color(cmd.verdict.color);
  std::vector<Finding> all;
  for (const auto& path : cmd.analyze.files) {
    const FileVerdict v = analyze_file(path, cmd);
    std::printf("%s\n%s", v.header.c_str(), report::render_findings(v.findings, color).c_str());
    all.insert(all.end(), v.findings.begin(), v.findings.end());
  }
  std::fputs(report::render_summary(all, color).c_str(), stdout);
  return report::exit_code_for(all, cmd.verdict.fail_on_warn);
}

}  // namespace collbench
