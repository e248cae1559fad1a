#include "launcher/result_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "bench/errors.h"
#include "launcher/run_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_read.h"
#include "reports/core/json_report.h"

namespace collbench {
namespace {

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

// A collbench.run/1 document of results read from another tool's output: what compare needs
// (world and cases); what the file did not say is left out, never guessed.
nlohmann::json document_of(const report::ExternalResults& r) {
  nlohmann::json world{{"ranks", r.span.ranks}};
  if (!r.span.hosts.empty()) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& h : r.span.hosts) nodes.push_back({{"name", h}});
    world["nodes"] = nodes;
  }
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : r.cases) cases.push_back(report::to_json(c));
  return {{"schema", report::kRunSchema}, {"source_format", r.format}, {"world", world}, {"cases", cases}};
}

}  // namespace

LoadedResults load_results(const std::string& path, const report::ResultHints& hints) {
  LoadedResults in;
  in.text = without_fixture_metadata(read_text_file(path));
  const std::string name = std::filesystem::path(path).filename().string();
  report::ExternalResults& r = in.results;
  nlohmann::json doc = nlohmann::json::parse(in.text, nullptr, /*allow_exceptions=*/false);
  bool partial = false;
  if (doc.is_discarded()) {  // JSON lines: a journal of a run that did not finish?
    const auto first = nlohmann::json::parse(in.text.substr(0, in.text.find('\n')), nullptr, false);
    partial = first.is_object() && first.value("schema", "") == report::kPartialSchema;
    if (partial) doc = read_run_json(path);
  }
  try {
    if (partial || (doc.is_object() && doc.value("schema", "") == report::kRunSchema)) {
      r.format = partial ? "collbench partial journal" : "collbench json";
      r.cases = report::cases_from_json(doc);
      r.span = report::span_from_json(doc);
      in.nodes = report::nodes_from_json(doc);
      if (doc.contains("world")) in.backend = doc["world"].value("backend", "");
      if (hints.nodes > 0 && hints.nodes != r.span.nodes)
        throw std::invalid_argument(
            fmt::format("--nodes {} contradicts the run, which names {} node(s); drop --nodes", hints.nodes, r.span.nodes));
      if (partial)
        in.incomplete = "the file is the journal of a run that did not finish (.partial)";
      else if (!doc.value("complete", true))
        in.incomplete = "the run ended early" + (doc.contains("error") && doc["error"].is_string()
                                                     ? ": " + doc["error"].get<std::string>()
                                                     : std::string(" (complete: false)"));
      in.document = std::move(doc);
    } else {
      r = doc.is_object() && doc.contains("results") ? report::from_nccl_tests_json(doc, name, hints)
                                                     : report::from_nccl_tests_text(in.text, name, hints);
      in.document = document_of(r);
    }
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("'{}': {}", path, e.what()));
  }
  return in;
}

nlohmann::json load_results_document(const std::string& path) {
  LoadedResults in = load_results(path, {});
  if (in.results.cases.empty())
    throw UsageError(fmt::format("'{}': no nccl-tests table or collbench result found in it; give a collbench --json "
                                 "result or an nccl-tests output",
                                 path));
  return std::move(in.document);
}

}  // namespace collbench
