#include "launcher/cli/report_options.h"

#include <fmt/format.h>


#include "bench/errors.h"

namespace collbench {

void add_html_option(CLI::App& command, VerdictOptions& v) {
  command.add_option("--html", v.html,
                     "Also write the report page of the results here at the end (what 'collbench report FILE -o' makes)");
}

CLI::App* add_report_subcommand(CLI::App& app, Command& cmd) {
  ReportOptions& o = cmd.report;
  CLI::App* report = app.add_subcommand(
      "report", "Pages and metrics from collbench documents (run, hunt, fabric, preflight; or any results analyze "
                "reads): one self-contained HTML page, Prometheus text for node_exporter's textfile collector, "
                "CloudWatch embedded metric format lines");
  report->add_option("files", o.files,
                     "collbench JSON documents (for metrics, one per command; several runs on the page are also "
                     "compared with the first)")
      ->required();
  report->add_option("-o,--output", o.html,
                     "Write the HTML page here (- for standard output): charts, heatmaps, findings, no network needed");
  report->add_option("--thresholds", cmd.verdict.thresholds,
                     "Thresholds FILE or DIR for the page's threshold lines (default: the installed thresholds/)");
  report->add_option("--prom", o.prom,
                     "Write the Prometheus text exposition here (- for standard output), e.g. "
                     "/var/lib/node_exporter/textfile_collector/collbench.prom");
  report->add_option("--emf", o.emf,
                     "Write CloudWatch embedded metric format lines here (- for standard output), for the CloudWatch "
                     "agent or a log group");
  report->add_option("--emf-namespace", o.emf_namespace, "CloudWatch namespace of the EMF metrics")
      ->capture_default_str();
  report->footer(
      "Exit codes: 0 written; 2 bad usage or input (nothing written).\n"
      "Examples:\n  collbench report preflight.json -o preflight.html\n"
      "  collbench report before.json after.json -o regression.html\n"
      "  collbench report preflight.json --prom /var/lib/node_exporter/textfile_collector/collbench.prom");
  return report;
}

void finish_report_options(Command& cmd) {
  ReportOptions& o = cmd.report;
  const std::vector<std::pair<const char*, std::string>> outputs{{"-o", o.html}, {"--prom", o.prom}, {"--emf", o.emf}};
  if (o.html.empty() && o.prom.empty() && o.emf.empty())
    throw UsageError("give -o FILE.html, --prom FILE or --emf FILE (any of them): what to write");
  for (std::size_t i = 0; i < outputs.size(); ++i)
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [a, pa] = outputs[i];
      const auto& [b, pb] = outputs[j];
      if (pa == "-" && pb == "-") throw UsageError(fmt::format("{} - and {} -: only one can go to standard output", a, b));
      if (!pa.empty() && pa == pb) throw UsageError(fmt::format("{} and {} both name {}", a, b, pa));
    }
  if (o.emf_namespace.empty() || o.emf_namespace.size() > 255 || o.emf_namespace.find(':') != std::string::npos)
    throw UsageError(fmt::format("--emf-namespace '{}': give 1 to 255 characters without ':'", o.emf_namespace));
}

}  // namespace collbench
