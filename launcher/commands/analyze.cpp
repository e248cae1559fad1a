#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "bench/errors.h"
#include "launcher/commands/commands.h"
#include "launcher/inputs/result_input.h"
#include "bench/solo_control.h"
#include "launcher/commands/finish.h"
#include "launcher/inputs/known_issue_input.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/analyze/analyze_input.h"
#include "reports/core/json_input.h"
#include "reports/inspector/inspector_rules.h"
#include "reports/core/oversubscription.h"
#include "reports/run/arrival.h"
#include "reports/run/curve_verdicts.h"
#include "reports/thresholds/instance_types.h"
#include "reports/core/journal.h"
#include "reports/run/judged.h"
#include "reports/core/json_read.h"
#include "reports/core/json_report.h"
#include "reports/env/nccl_log.h"
#include "reports/run/result_verdicts.h"
#include "reports/core/summary.h"

namespace collbench {
namespace {

using report::Finding;
using report::Priority;
using report::Tag;

struct FileVerdict {
  std::string header;  // what was read, for the person
  std::vector<Finding> findings;
  nlohmann::json document;  // collbench.run/1 of what was read (analyze --json)
};

bool has_nccl_log(const std::string& text) {
  return text.find(" NCCL INFO ") != std::string::npos || text.find(" NCCL WARN ") != std::string::npos;
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
  const std::string instance = resolve_instance_type(cmd.verdict, "");
  LoadedResults in = load_results(path, {cmd.analyze.nodes, cmd.analyze.op});
  report::ExternalResults& r = in.results;
  const std::string& text = in.text;
  const auto thresholds = thresholds_for(cmd.verdict, instance);
  infer_nodes_from_gpus(r, thresholds, instance);

  FileVerdict v;
  v.document = std::move(in.document);
  v.document["inferred"] = r.notes;  // what analyze inferred, and from what
  v.header = fmt::format("# {}: {}, {} cases, {} ranks on {} node(s)", path, r.format, r.cases.size(), r.span.ranks,
                         r.span.nodes == 0 ? std::string("?") : std::to_string(r.span.nodes));
  for (const auto& note : r.notes) v.header += "\n#   note: " + note;
  for (const auto& m : r.malformed)
    v.findings.push_back({"MALFORMED_LINE", Tag::Warn, Priority::P2,
                          fmt::format("{} line {} looks like a measurement but could not be read: '{}'", path, m.line,
                                      m.text),
                          "", report::Subject::world()});
  if (!r.cases.empty()) {
    for (auto& f : report::result_findings(r.cases, in.nodes)) v.findings.push_back(std::move(f));
    const auto crowded = report::oversubscribed(v.document);  // collbench JSON only, as arrivals are
    if (crowded) v.findings.push_back(report::oversubscribed_finding(*crowded));
    for (auto& f : report::late_rank_findings(r.cases, crowded)) v.findings.push_back(std::move(f));
    if (report::curve_rule_applies(in.backend))
      for (auto& f : report::curve_dip_findings(r.cases)) v.findings.push_back(std::move(f));
    if (auto f = report::single_rank_finding(r.span.ranks)) v.findings.push_back(std::move(*f));
    if (r.span.nodes == 0)
      v.findings.push_back(report::thresholds_skipped("the node count is unknown; pass --nodes"));
    else
      for (auto& f : threshold_findings(cmd.verdict, instance, thresholds, r.cases, r.span)) v.findings.push_back(std::move(f));
    if (!in.incomplete.empty()) v.findings.push_back(report::incomplete_input_finding(in.incomplete));
    std::optional<report::NetworkLimit> limit;
    if (thresholds && thresholds->hardware.efa_gbps > 0)
      limit = report::NetworkLimit{r.span.ranks, r.span.nodes, thresholds->hardware.efa_gbps / 8, instance};
    if (auto f = report::implausible_values_finding(r.cases, limit)) {
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
    report::RankEnv from_log;  // the versions the log prints: NCCL, aws-ofi-nccl, libfabric
    from_log.nccl_log = facts;
    const bool untrusted = std::any_of(v.findings.begin(), v.findings.end(),
                                       [](const Finding& f) { return f.code == "IMPLAUSIBLE_VALUES"; });
    for (auto& f : known_issue_findings(cmd.verdict, {from_log}, /*from_log=*/true))
      if (!untrusted || f.tag != Tag::Pass) v.findings.push_back(std::move(f));  // untrusted input: no [PASS]
  }
  if (r.cases.empty() && !has_nccl_log(text))
    throw UsageError(fmt::format("'{}': no nccl-tests table, collbench result or NCCL log found in it", path));
  return v;
}

// NCCL Inspector logs: every path given is one job's, read together (the same collective is in
// every rank's file).
FileVerdict analyze_inspector(const std::vector<std::string>& paths, const Command& cmd) {
  namespace insp = report::inspector;
  insp::Job job;
  try {
    insp::ReadOptions options;
    options.progress = [](std::uint64_t n) {
      std::fprintf(stderr, "reading Inspector logs: %llu records\n", static_cast<unsigned long long>(n));
    };
    job = insp::read_job(paths, options);
  } catch (const report::InputError& e) {
    throw UsageError(e.what());
  }
  FileVerdict v;
  v.header = fmt::format("# {}: {}", fmt::join(paths, " "), insp::job_summary(job));
  v.findings = insp::inspector_findings(job, thresholds_for(cmd.verdict, resolve_instance_type(cmd.verdict, "")));
  v.document = insp::job_document(job);
  return v;
}

}  // namespace

int analyze_command(const Command& cmd) {
  const bool color = use_color(cmd.verdict.color);
  std::vector<Finding> all;
  nlohmann::json last;  // the document of the (only) file, for --json
  std::vector<std::string> inspector, others;
  for (const auto& path : cmd.analyze.files)
    (report::inspector::is_inspector_path(path) ? inspector : others).push_back(path);
  if (!inspector.empty()) {
    FileVerdict v = analyze_inspector(inspector, cmd);
    std::printf("%s\n%s", v.header.c_str(), report::render_findings(v.findings, color).c_str());
    all.insert(all.end(), v.findings.begin(), v.findings.end());
    last = std::move(v.document);
  }
  for (const auto& path : others) {
    FileVerdict v = analyze_file(path, cmd);
    std::printf("%s\n%s", v.header.c_str(), report::render_findings(v.findings, color).c_str());
    all.insert(all.end(), v.findings.begin(), v.findings.end());
    last = std::move(v.document);
  }
  Ending ending{all, false, nullptr, std::nullopt};
  if (!cmd.analyze.json.empty())
    ending.save = [&](const std::vector<Finding>& findings, int code) {
      report::add_verdict(last, findings, code);
      report::write_file_atomically(cmd.analyze.json, last.dump(2) + "\n");
    };
  SoloControl control;
  return finish(control, cmd.verdict, color, ending);
}

}  // namespace collbench
