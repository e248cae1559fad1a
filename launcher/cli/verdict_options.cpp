#include "launcher/cli/verdict_options.h"

#include <fmt/format.h>

#include "bench/errors.h"

namespace collbench {

void add_verdict_options(CLI::App& app, VerdictOptions& v, VerdictText& raw) {
  app.add_option("--thresholds", v.thresholds,
                 "Thresholds FILE, DIR of <instance-type>.json files, or none (default: the installed thresholds/)");
  app.add_option("--instance-type", v.instance_type,
                 "EC2 instance type to judge against (default: the machine's DMI product name)");
  app.add_option("--fail-on", raw.fail_on, "fail (default) or warn: which findings make the exit code 3");
  app.add_option("--color", v.color, "Colour the finding tags: auto, always or never")->capture_default_str();
  app.add_flag("--no-color", raw.no_color, "Same as --color never");
}

void add_known_issues_option(CLI::App& app, VerdictOptions& v) {
  app.add_option("--known-issues", v.known_issues,
                 "Known-bad version combinations to check the versions found against (NCCL, aws-ofi-nccl, EFA "
                 "installer, libfabric, CUDA): a known-issues JSON FILE, or none (default: known-issues.json beside "
                 "the installed thresholds, skipped with an [INFO] when absent). A match is a KNOWN_BAD_VERSIONS "
                 "finding with the fix and the source; a FILE that cannot be read exits 2 before anything runs");
}

void finish_verdict_options(VerdictOptions& v, VerdictText& raw) {
  const std::string& fail_on = raw.fail_on;
  if (fail_on == "warn") v.fail_on_warn = true;
  else if (!fail_on.empty() && fail_on != "fail")
    throw UsageError(fmt::format("--fail-on '{}': use fail or warn", fail_on));
  if (raw.no_color == "true" || raw.no_color == "1") v.color = "never";
  if (v.color != "auto" && v.color != "always" && v.color != "never")
    throw UsageError(fmt::format("--color '{}': use auto, always or never", v.color));
}

}  // namespace collbench
