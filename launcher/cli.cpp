#include "launcher/result_input.h"
#include "launcher/cli.h"
#include "reports/inspector/inspector_job.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

#include "bench/errors.h"
#include "bench/sizes.h"
#include "launcher/cli_fabric.h"
#include "launcher/cli_launch.h"
#include "launcher/cli_outputs.h"
#include "launcher/cli_report.h"
#include "launcher/cli_preflight.h"
#include "launcher/cli_run.h"
#include "launcher/cli_verdict.h"
#include "launcher/known_issue_input.h"
#include "launcher/verdicts.h"

namespace collbench {
namespace {

constexpr const char* kToleranceHelp =
    "Relative busbw drop that counts as a regression (default: 5%, or 25% when either run is on the mpi backend, "
    "whose host-memory path drifts that much between identical runs)";
constexpr const char* kExitCodes =
    "Exit codes: 0 ran, nothing failed; 1 could not run (no GPU, MPI/NCCL failure, hang, dead rank); 2 bad usage or "
    "input; 3 ran and at least one [FAIL] (with --fail-on warn, a [WARN] too); 128+N stopped by signal N (143 "
    "SIGTERM, 130 SIGINT), what was measured saved to --json with \"complete\": false.";

}  // namespace

double parse_fraction(const std::string& text, const std::string& option) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    if (used < text.size() && text.substr(used) == "%") v /= 100, used = text.size();
    if (used != text.size() || !(v >= 0) || v >= 1) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("{} '{}': give a fraction such as 5% or 0.05 (0 to below 100%)", option, text));
  }
}

double parse_duration(const std::string& text, const std::string& option) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    const std::string unit = text.substr(used);
    if (unit == "m") v *= 60;
    else if (unit == "h") v *= 3600;
    else if (!unit.empty() && unit != "s") throw std::invalid_argument(text);
    if (!(v > 0) || !std::isfinite(v)) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("{} '{}': give a duration such as 300, 90s, 5m or 1h (more than 0)", option, text));
  }
}

Command parse_command_line(const std::vector<std::string>& args) {
  CLI::App app{"collbench: NCCL / MPI collective bandwidth harness with nccl-tests-compatible output and "
               "HyperPod-style verdicts",
               "collbench"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("collbench ") + COLLBENCH_VERSION);
  app.footer(kExitCodes);
  Command cmd;
  std::map<std::string, std::string> raw;

  CLI::App* run = app.add_subcommand(
      "run", "Sweep collectives over message sizes and report time, algbw, busbw and #wrong as nccl-tests does");
  add_run_options(*run, cmd.run, raw);
  add_verdict_options(*run, cmd.verdict, raw);
  add_known_issues_option(*run, cmd.verdict);
  add_html_option(*run, cmd.verdict);
  std::string tolerance;  // empty: the default for the backend compared (compare_runs)
  run->add_option("--baseline", cmd.baseline, "Compare with this earlier collbench JSON (see 'compare')");
  run->add_option("--tolerance", tolerance, kToleranceHelp);
  run->footer(std::string(kExitCodes) +
              "\nExamples:\n  mpirun -np 16 -N 8 collbench run -b 8 -e 8G -f 2 --json run.json\n"
              "  collbench run -g 8 -b 1M -e 8G -f 2");

  CLI::App* hunt = app.add_subcommand(
      "hunt", "Find the slow node or link: node pairs measured in concurrent rounds, judged against each other");
  std::map<std::string, std::string> hunt_raw;
  hunt->add_option("--pattern", cmd.hunt.pattern,
                   "pairwise (every node pair once, N-1 rounds), screen (a few ring/stride rounds) or auto "
                   "(each node on its own, then pairwise up to 8 nodes or else the screen, then a confirmation "
                   "round pairing each suspect with a healthy node)")
      ->capture_default_str();
  hunt->add_option("-b,--bytes", hunt_raw["b"],
                   "Message size of each pair measurement (default: chosen by a short probe of the first round so one "
                   "iteration of a healthy pair takes about 5 ms, 1M to 64M)");
  hunt->add_option("--budget", hunt_raw["budget"],
                   "Wall time for the whole hunt, e.g. 300, 90s, 5m (default: 60 s plus 15 s per planned round, "
                   "printed with the plan); rounds share it, and what it does not reach is reported as not measured");
  hunt->add_option("--op", hunt_raw["op"], "Collective measured on each pair (default all_reduce)");
  hunt->add_option("-n,--iters", cmd.hunt.iters,
                   "Most timed iterations per pair and round; a round also ends when its share of the budget is spent")
      ->capture_default_str();
  hunt->add_option("-w,--warmup_iters", cmd.run.warmup, "Untimed iterations per pair")->capture_default_str();
  hunt->add_option("--backend", hunt_raw["backend"], "auto, nccl or mpi");
  hunt->add_option("--json", cmd.run.json_path,
                   "Write the hunt document here: rounds with timings, pair samples, the node x node matrix, "
                   "verdicts (rounds are appended to FILE.partial as they finish)");
  hunt->add_option("--timeout", cmd.run.timeout_s, "Seconds one round may take")->capture_default_str();
  hunt->add_option("--fail-on", raw["fail-on"], "fail (default) or warn");
  hunt->add_option("--color", cmd.verdict.color, "auto, always or never")->capture_default_str();
  add_html_option(*hunt, cmd.verdict);
  hunt->add_flag("--no-color", raw["no-color"], "Same as --color never");
  hunt->footer(kExitCodes);

  std::map<std::string, std::string> fabric_raw;
  CLI::App* fabric = add_fabric_subcommand(app, cmd.fabric, fabric_raw);
  add_verdict_options(*fabric, cmd.verdict, raw);
  add_html_option(*fabric, cmd.verdict);

  std::map<std::string, std::string> preflight_raw;
  CLI::App* preflight = add_preflight_subcommand(app, cmd, preflight_raw);
  add_verdict_options(*preflight, cmd.verdict, raw);
  add_known_issues_option(*preflight, cmd.verdict);
  add_html_option(*preflight, cmd.verdict);

  CLI::App* analyze = app.add_subcommand(
      "analyze", "Judge results collbench did not produce: nccl-tests text or JSON (-J) output, collbench JSON, "
                 "NCCL_DEBUG=INFO logs, a job's NCCL Inspector logs (its NCCL_INSPECTOR_DUMP_DIR, read as one job)");
  analyze->add_option("files", cmd.analyze.files, "Files (or NCCL Inspector directories) to analyse")->required();
  analyze->add_option("--nodes", cmd.analyze.nodes, "Node count, when the file does not show it");
  analyze->add_option("--op", cmd.analyze.op, "Collective, when the file does not name it (all_reduce, all_to_all, ...)");
  analyze->add_option("--json", cmd.analyze.json,
                      "Write the file's results and verdict as a collbench JSON document (one file only), e.g. to "
                      "use an nccl-tests output as a baseline for compare or run --baseline");
  add_verdict_options(*analyze, cmd.verdict, raw);
  add_known_issues_option(*analyze, cmd.verdict);
  analyze->footer(kExitCodes);

  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two collbench JSON results case by case: better, same, worse or inconclusive");
  compare->add_option("baseline", cmd.compare.baseline, "The known-good run")->required();
  compare->add_option("current", cmd.compare.current, "The run to judge")->required();
  compare->add_option("--tolerance", tolerance, kToleranceHelp);
  add_verdict_options(*compare, cmd.verdict, raw);
  compare->footer(kExitCodes);

  CLI::App* thresholds = app.add_subcommand("thresholds", "Work with threshold files");
  thresholds->require_subcommand(1);
  CLI::App* derive = thresholds->add_subcommand(
      "derive", "Write a thresholds file from a known-good collbench run of your own cluster");
  derive->add_option("run", cmd.derive.run, "collbench JSON of the known-good run")->required();
  std::string margin = "10%";
  derive->add_option("--margin", margin, "How far below the measured busbw fail_below sits (default 10%)");
  derive->add_option("-o,--output", cmd.derive.output, "Write here instead of stdout");
  derive->add_option("--instance-type", cmd.verdict.instance_type, "Instance type, when the run does not record it");

  std::map<std::string, std::string> launch_raw;
  CLI::App* launch = add_launch_subcommand(app, cmd, launch_raw);
  CLI::App* launch_slurm = launch->get_subcommand("slurm");
  CLI::App* launch_k8s = launch->get_subcommand("k8s");
  CLI::App* launch_prolog = launch->get_subcommand("prolog");
  cmd.launch.argv = args;
  CLI::App* report = add_report_subcommand(app, cmd);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  CLI::App* active = &app;
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    for (CLI::App* sub : {run, hunt, fabric, preflight, analyze, compare, derive, thresholds, launch, launch_slurm,
                          launch_k8s, launch_prolog, report})
      if (sub->parsed()) active = sub;
    cmd.kind = Command::Kind::Help;
    cmd.text = active->help();
    return cmd;
  } catch (const CLI::CallForVersion&) {
    cmd.kind = Command::Kind::Version;
    cmd.text = std::string("collbench ") + COLLBENCH_VERSION + "\n";
    return cmd;
  } catch (const CLI::ParseError& e) {
    std::string where = "collbench --help";
    for (const auto* sub : {run, hunt, fabric, preflight, analyze, compare, thresholds, launch, report})
      if (sub->parsed()) where = "collbench " + sub->get_name() + " --help";
    for (const auto* sub : {launch_slurm, launch_k8s, launch_prolog})
      if (sub->parsed()) where = "collbench launch " + sub->get_name() + " --help";
    throw UsageError(fmt::format("{}; see '{}'", e.what(), where));
  }
  finish_verdict_options(cmd.verdict, raw);
  for (const CLI::App* sub : {run, hunt, fabric, preflight, analyze, derive, report, launch_slurm, launch_k8s, launch_prolog})
    if (sub->parsed()) check_output_options(*sub);
  // Not for `thresholds derive`, whose --instance-type names the profile it writes.
  if (run->parsed() || fabric->parsed() || preflight->parsed() || analyze->parsed() || compare->parsed() ||
      report->parsed())
    check_verdict_inputs(cmd.verdict);
  if (run->parsed() || preflight->parsed() || analyze->parsed()) known_issues_for(cmd.verdict);  // unusable: exit 2
  if (run->parsed()) {
    if (!cmd.baseline.empty()) load_results_document(cmd.baseline);  // unusable: exit 2 before anything runs
    finish_run_options(cmd.run, raw);
    if (!tolerance.empty()) cmd.tolerance = parse_fraction(tolerance, "--tolerance");
    cmd.kind = Command::Kind::Run;
  } else if (hunt->parsed()) {
    if (cmd.hunt.pattern != "auto" && cmd.hunt.pattern != "pairwise" && cmd.hunt.pattern != "screen")
      throw UsageError(fmt::format("--pattern '{}': use auto, pairwise or screen", cmd.hunt.pattern));
    std::map<std::string, std::string> run_raw{{"b", ""}, {"ops", hunt_raw["op"]}, {"backend", hunt_raw["backend"]}};
    finish_run_options(cmd.run, run_raw);
    if (!hunt_raw["b"].empty()) cmd.hunt.bytes = parse_size(hunt_raw["b"], "-b");
    if (!hunt_raw["budget"].empty()) cmd.hunt.budget_s = parse_duration(hunt_raw["budget"], "--budget");
    cmd.run.iters.fixed = cmd.hunt.iters;
    if (cmd.run.iters.fixed < 3) throw UsageError("-n must be at least 3: a pair needs a spread to be judged");
    cmd.run.progress = false;
    cmd.kind = Command::Kind::Hunt;
  } else if (fabric->parsed()) {
    finish_fabric_options(cmd.fabric, fabric_raw);
    cmd.kind = Command::Kind::Fabric;
  } else if (preflight->parsed()) {
    finish_preflight_options(cmd, preflight_raw);
    cmd.kind = Command::Kind::Preflight;
  } else if (analyze->parsed()) {
    if (cmd.analyze.nodes < 0) throw UsageError("--nodes must be positive");
    if (!cmd.analyze.op.empty()) cmd.analyze.op = canonical_op(cmd.analyze.op, "--op");
    const bool one_job = std::all_of(cmd.analyze.files.begin(), cmd.analyze.files.end(),
                                     report::inspector::is_inspector_path);  // Inspector logs: one job
    if (!cmd.analyze.json.empty() && cmd.analyze.files.size() != 1 && !one_job)
      throw UsageError(fmt::format("--json takes the results of one file, and {} were given; analyze them one at a time",
                                   cmd.analyze.files.size()));
    cmd.kind = Command::Kind::Analyze;
  } else if (compare->parsed()) {
    if (!tolerance.empty()) cmd.compare.tolerance = parse_fraction(tolerance, "--tolerance");
    cmd.kind = Command::Kind::Compare;
  } else if (launch->parsed()) {
    finish_launch_options(cmd, *launch, launch_raw);
    cmd.kind = Command::Kind::Launch;
  } else if (report->parsed()) {
    finish_report_options(cmd);
    cmd.kind = Command::Kind::Report;
  } else if (derive->parsed()) {
    cmd.derive.margin = parse_fraction(margin, "--margin");
    cmd.kind = Command::Kind::DeriveThresholds;
  } else {
    cmd.kind = Command::Kind::Help;
    cmd.text = app.help();
  }
  return cmd;
}

}  // namespace collbench
