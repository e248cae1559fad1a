#include "launcher/inputs/result_input.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "bench/errors.h"
#include "launcher/inputs/run_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_input.h"
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
  const auto has_schema = [](const nlohmann::json& j, const char* schema) {
    return j.is_object() && j.contains("schema") && j["schema"] == schema;
  };
  bool partial = false;
  if (doc.is_discarded()) {  // JSON lines: a journal of a run that did not finish?
    const auto first = nlohmann::json::parse(in.text.substr(0, in.text.find('\n')), nullptr, false);
    partial = has_schema(first, report::kPartialSchema);
    if (partial) doc = read_run_json(path);
  }
  if (partial || has_schema(doc, report::kRunSchema)) {
    reading_file(path, "rerun collbench or fix the file", [&] {
      r.format = partial ? "collbench partial journal" : "collbench json";
      r.cases = report::cases_from_json(doc);
      r.span = report::span_from_json(doc);
      in.nodes = report::nodes_from_json(doc);
      if (doc.contains("world") && doc["world"].is_object())
        in.backend = report::reading("world", [&] { return report::string_field(doc["world"], "backend"); });
    });
    if (hints.nodes > 0 && hints.nodes != r.span.nodes)
      throw UsageError(fmt::format("'{}': --nodes {} contradicts the run, which names {} node(s); drop --nodes", path,
                                   hints.nodes, r.span.nodes));
    if (partial)
      in.incomplete = "the file is the journal of a run that did not finish (.partial)";
    else if (doc.contains("complete") && doc["complete"] == false)
      in.incomplete = "the run ended early" + (doc.contains("error") && doc["error"].is_string()
                                                   ? ": " + doc["error"].get<std::string>()
                                                   : std::string(" (complete: false)"));
    in.document = std::move(doc);
  } else if (doc.is_object() && doc.contains("results")) {
    r = reading_file(path, "rerun nccl-tests with -J or fix the file",
                     [&] { return report::from_nccl_tests_json(doc, name, hints); });
    in.document = document_of(r);
  } else {
    r = reading_file(path, "", [&] { return report::from_nccl_tests_text(in.text, name, hints); });
    // Text that starts as JSON and holds no table was meant as JSON: say where it stops being that.
    const auto first = in.text.find_first_not_of(" \t\r\n");
    if (r.cases.empty() && first != std::string::npos && (in.text[first] == '{' || in.text[first] == '['))
      reading_file(path, "rerun collbench or fix the file", [&] { report::parse_input_json(in.text); });
    in.document = document_of(r);
  }
  return in;
}

nlohmann::json load_results_document(const std::string& path) {
  LoadedResults in = load_results(path, {});
  if (in.results.cases.empty())
    throw UsageError(fmt::format("'{}': no nccl-tests table or collbench result found in it; give a collbench --json "
                                 "result or an nccl-tests output",
                                 path));
  // Compare reads the cases as this build reads them: every field there, of its type; and a null
  // in world as the member not being there, as the readers did.
  nlohmann::json& doc = in.document;
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& c : in.results.cases) cases.push_back(report::to_json(c));
  doc["cases"] = std::move(cases);
  if (doc.contains("world") && doc["world"].is_null()) doc.erase("world");
  if (doc.contains("world"))
    for (auto it = doc["world"].begin(); it != doc["world"].end();) it = it->is_null() ? doc["world"].erase(it) : ++it;
  return std::move(doc);
}

}  // namespace collbench
