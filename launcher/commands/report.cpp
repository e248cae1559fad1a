// `collbench report`: collbench documents into a page and metrics files.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>

#include "bench/errors.h"
#include "launcher/commands/commands.h"
#include "launcher/inputs/result_input.h"
#include "launcher/inputs/run_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_read.h"
#include "reports/export/emf.h"
#include "reports/export/metrics.h"
#include "reports/export/prometheus.h"
#include "reports/html/page.h"
#include "launcher/verdicts/verdicts.h"

namespace collbench {
namespace {

// A collbench document as written, else whatever analyze reads (nccl-tests output, a run's
// .partial journal) as a run document.
nlohmann::json load_document(const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(read_text_file(path), nullptr, false);
  if (!doc.is_object() || !doc.contains("schema")) {
    LoadedResults in = load_results(path, {});
    if (in.results.cases.empty() && in.incomplete.empty())
      throw UsageError(fmt::format("'{}': no collbench document, nccl-tests table or collbench journal found in it; "
                                   "give one of those",
                                   path));
    return std::move(in.document);
  }
  reading_file(path, "rerun collbench or fix the file", [&] { report::check_document(doc); });
  return doc;
}

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  report::write_file_atomically(path, text);
}

}  // namespace

int report_command(const Command& cmd) {
  const ReportOptions& o = cmd.report;
  report::MetricSet set;
  std::vector<report::html::PageDocument> pages;
  std::size_t records = 0;
  for (const auto& file : o.files) {
    const nlohmann::json doc = load_document(file);
    // Refuses what is not a collbench document, for the page too; the page alone may show several
    // documents of one command, so without metrics output each is checked on its own.
    report::MetricSet own;
    try {
      report::add_document_metrics(doc, o.prom.empty() && o.emf.empty() ? own : set);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("{}: {}", file, e.what()));
    }
    records += own.records.size();
    const std::string type = cmd.verdict.instance_type.empty() ? report::html::document_instance_type(doc) : cmd.verdict.instance_type;
    pages.push_back({file, doc, type.empty() ? std::nullopt : thresholds_for(cmd.verdict, type)});
  }
  // Every text first: a bad input leaves no file.
  const std::string page =
      o.html.empty() ? "" : report::html::html_page(pages, fmt::format("collbench {}: {}", COLLBENCH_VERSION,
                                                                       fmt::join(o.files, ", ")));
  const std::string prom = o.prom.empty() ? "" : report::prometheus_text(set);
  const long long now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::string emf = o.emf.empty() ? "" : report::emf_lines(set, o.emf_namespace, now_ms);
  if (!o.html.empty()) write_output(o.html, page);
  if (!o.prom.empty()) write_output(o.prom, prom);
  if (!o.emf.empty()) write_output(o.emf, emf);
  for (const auto& [path, what] :
       {std::pair{o.html, "the page"}, std::pair{o.prom, "Prometheus text"}, std::pair{o.emf, "EMF lines"}})
    if (!path.empty() && path != "-")
      std::fprintf(stderr, "collbench: wrote %s to %s (%zu records)\n", what, path.c_str(), records + set.records.size());
  return kExitOk;
}

}  // namespace collbench
