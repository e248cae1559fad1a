#include "launcher/cli_report.h"

#include <fmt/format.h>

#include <filesystem>

#include "bench/errors.h"

namespace collbench {

CLI::App* add_report_subcommand(CLI::App& app, Command& cmd) {
  ReportOptions& o = cmd.report;
  CLI::App* report = app.add_subcommand(
      "report", "Metrics from collbench documents (run, hunt, fabric, preflight; or any results analyze reads): "
                "Prometheus text for node_exporter's textfile collector, CloudWatch embedded metric format lines");
  report->add_option("files", o.files, "collbench JSON documents (several: one per command)")->required();
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
      "Example:\n  collbench report preflight.json --prom /var/lib/node_exporter/textfile_collector/collbench.prom");
  return report;
}

void finish_report_options(Command& cmd) {
  ReportOptions& o = cmd.report;
  if (o.prom.empty() && o.emf.empty()) throw UsageError("give --prom FILE or --emf FILE (or both): what to write");
  if (o.prom == "-" && o.emf == "-") throw UsageError("--prom - and --emf -: only one can go to standard output");
  if (!o.prom.empty() && o.prom == o.emf) throw UsageError(fmt::format("--prom and --emf both name {}", o.prom));
  for (const auto& [flag, path] : {std::pair{"--prom", o.prom}, std::pair{"--emf", o.emf}}) {
    if (path.empty() || path == "-") continue;
    namespace fs = std::filesystem;
    const fs::path parent = fs::absolute(path).parent_path();
    if (fs::is_directory(path)) throw UsageError(fmt::format("{} {}: a folder; give a file name in it", flag, path));
    if (!fs::is_directory(parent))
      throw UsageError(fmt::format("{} {}: no folder {}; create it first", flag, path, parent.string()));
  }
  if (o.emf_namespace.empty() || o.emf_namespace.size() > 255 || o.emf_namespace.find(':') != std::string::npos)
    throw UsageError(fmt::format("--emf-namespace '{}': give 1 to 255 characters without ':'", o.emf_namespace));
}

}  // namespace collbench
