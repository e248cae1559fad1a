#include "launcher/cli/parse.h"

#include "reports/inspector/inspector_job.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>

#include "bench/errors.h"
#include "bench/sizes.h"
#include "launcher/cli/fabric_options.h"
#include "launcher/cli/launch_options.h"
#include "launcher/cli/output_options.h"
#include "launcher/cli/report_options.h"
#include "launcher/cli/preflight_options.h"
#include "launcher/cli/run_options.h"
#include "launcher/cli/verdict_options.h"

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

namespace {

// What options hold as text until the subcommand is known and its options are finished.
struct HuntText {
  std::string b, budget, op, backend;
};

struct RawText {
  RunText run;
  VerdictText verdict;
  HuntText hunt;
  FabricText fabric;
  PreflightText preflight;
  std::string tolerance;  // empty: the default for the backend compared (compare_runs)
  std::string margin = "10%";
};

// The subcommands as declared: which one the line named decides what is finished.
struct Subcommands {
  CLI::App *run, *hunt, *fabric, *preflight, *analyze, *compare, *thresholds, *derive, *launch, *launch_slurm,
      *launch_k8s, *launch_prolog, *report;
};

CLI::App* add_run(CLI::App& app, Command& cmd, RawText& raw) {
  CLI::App* run = app.add_subcommand(
      "run", "Sweep collectives over message sizes and report time, algbw, busbw and #wrong as nccl-tests does");
  add_run_options(*run, cmd.run, raw.run);
  add_verdict_options(*run, cmd.verdict, raw.verdict);
  add_known_issues_option(*run, cmd.verdict);
  add_html_option(*run, cmd.verdict);
    run->add_option("--baseline", cmd.baseline, "Compare with this earlier collbench JSON (see 'compare')");
  run->add_option("--tolerance", raw.tolerance, kToleranceHelp);
  run->footer(std::string(kExitCodes) +
              "\nExamples:\n  mpirun -np 16 -N 8 collbench run -b 8 -e 8G -f 2 --json run.json\n"
              "  collbench run -g 8 -b 1M -e 8G -f 2");

  return run;
}

CLI::App* add_hunt(CLI::App& app, Command& cmd, RawText& raw) {
  CLI::App* hunt = app.add_subcommand(
      "hunt", "Find the slow node or link: node pairs measured in concurrent rounds, judged against each other");
    hunt->add_option("--pattern", cmd.hunt.pattern,
                   "pairwise (every node pair once, N-1 rounds), screen (a few ring/stride rounds) or auto "
                   "(each node on its own, then pairwise up to 8 nodes or else the screen, then a confirmation "
                   "round pairing each suspect with a healthy node)")
      ->capture_default_str();
  hunt->add_option("-b,--bytes", raw.hunt.b,
                   "Message size of each pair measurement (default: chosen by a short probe of the first round so one "
                   "iteration of a healthy pair takes about 5 ms, 1M to 64M)");
  hunt->add_option("--budget", raw.hunt.budget,
                   "Wall time for the whole hunt, e.g. 300, 90s, 5m (default: 60 s plus 15 s per planned round, "
                   "printed with the plan); rounds share it, and what it does not reach is reported as not measured");
  hunt->add_option("--op", raw.hunt.op, "Collective measured on each pair (default all_reduce)");
  hunt->add_option("-n,--iters", cmd.hunt.iters,
                   "Most timed iterations per pair and round; a round also ends when its share of the budget is spent")
      ->capture_default_str();
  hunt->add_option("-w,--warmup_iters", cmd.run.warmup, "Untimed iterations per pair")->capture_default_str();
  hunt->add_option("--backend", raw.hunt.backend, "auto, nccl or mpi");
  hunt->add_option("--json", cmd.run.json_path,
                   "Write the hunt document here: rounds with timings, pair samples, the node x node matrix, "
                   "verdicts (rounds are appended to FILE.partial as they finish)");
  hunt->add_option("--timeout", cmd.run.timeout_s, "Seconds one round may take")->capture_default_str();
  hunt->add_option("--fail-on", raw.verdict.fail_on, "fail (default) or warn");
  hunt->add_option("--color", cmd.verdict.color, "auto, always or never")->capture_default_str();
  add_html_option(*hunt, cmd.verdict);
  hunt->add_flag("--no-color", raw.verdict.no_color, "Same as --color never");
  hunt->footer(kExitCodes);

  return hunt;
}

CLI::App* add_analyze(CLI::App& app, Command& cmd, RawText& raw) {
  CLI::App* analyze = app.add_subcommand(
      "analyze", "Judge results collbench did not produce: nccl-tests text or JSON (-J) output, collbench JSON, "
                 "NCCL_DEBUG=INFO logs, a job's NCCL Inspector logs (its NCCL_INSPECTOR_DUMP_DIR, read as one job)");
  analyze->add_option("files", cmd.analyze.files, "Files (or NCCL Inspector directories) to analyse")->required();
  analyze->add_option("--nodes", cmd.analyze.nodes, "Node count, when the file does not show it");
  analyze->add_option("--op", cmd.analyze.op, "Collective, when the file does not name it (all_reduce, all_to_all, ...)");
  analyze->add_option("--json", cmd.analyze.json,
                      "Write the file's results and verdict as a collbench JSON document (one file only), e.g. to "
                      "use an nccl-tests output as a baseline for compare or run --baseline");
  add_verdict_options(*analyze, cmd.verdict, raw.verdict);
  add_known_issues_option(*analyze, cmd.verdict);
  analyze->footer(kExitCodes);

  return analyze;
}

CLI::App* add_compare(CLI::App& app, Command& cmd, RawText& raw) {
  CLI::App* compare = app.add_subcommand(
      "compare", "Compare two collbench JSON results case by case: better, same, worse or inconclusive");
  compare->add_option("baseline", cmd.compare.baseline, "The known-good run")->required();
  compare->add_option("current", cmd.compare.current, "The run to judge")->required();
  compare->add_option("--tolerance", raw.tolerance, kToleranceHelp);
  add_verdict_options(*compare, cmd.verdict, raw.verdict);
  compare->footer(kExitCodes);

  return compare;
}

// `thresholds derive`; returns `thresholds`, whose child it is.
CLI::App* add_thresholds(CLI::App& app, Command& cmd, RawText& raw) {
  CLI::App* thresholds = app.add_subcommand("thresholds", "Work with threshold files");
  thresholds->require_subcommand(1);
  CLI::App* derive = thresholds->add_subcommand(
      "derive", "Write a thresholds file from a known-good collbench run of your own cluster");
  derive->add_option("run", cmd.derive.run, "collbench JSON of the known-good run")->required();
    derive->add_option("--margin", raw.margin, "How far below the measured busbw fail_below sits (default 10%)");
  derive->add_option("-o,--output", cmd.derive.output, "Write here instead of stdout");
  derive->add_option("--instance-type", cmd.verdict.instance_type, "Instance type, when the run does not record it");

  return thresholds;
}

Subcommands declare(CLI::App& app, Command& cmd, RawText& raw, const std::vector<std::string>& args) {
  Subcommands s{};
  s.run = add_run(app, cmd, raw);
  s.hunt = add_hunt(app, cmd, raw);
  s.fabric = add_fabric_subcommand(app, cmd.fabric, raw.fabric);
  add_verdict_options(*s.fabric, cmd.verdict, raw.verdict);
  add_html_option(*s.fabric, cmd.verdict);
  s.preflight = add_preflight_subcommand(app, cmd, raw.preflight);
  add_verdict_options(*s.preflight, cmd.verdict, raw.verdict);
  add_known_issues_option(*s.preflight, cmd.verdict);
  add_html_option(*s.preflight, cmd.verdict);
  s.analyze = add_analyze(app, cmd, raw);
  s.compare = add_compare(app, cmd, raw);
  s.thresholds = add_thresholds(app, cmd, raw);
  s.derive = s.thresholds->get_subcommand("derive");
  s.launch = add_launch_subcommand(app, cmd);
  s.launch_slurm = s.launch->get_subcommand("slurm");
  s.launch_k8s = s.launch->get_subcommand("k8s");
  s.launch_prolog = s.launch->get_subcommand("prolog");
  cmd.launch.argv = args;
  s.report = add_report_subcommand(app, cmd);
  return s;
}

// Parses `args`; help and version end here (true), a parse error is a UsageError naming the
// subcommand's --help.
bool parse_or_answer(CLI::App& app, const Subcommands& s, const std::vector<std::string>& args, Command& cmd) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
    return false;
  } catch (const CLI::CallForHelp&) {
    CLI::App* active = &app;
    for (CLI::App* sub : {s.run, s.hunt, s.fabric, s.preflight, s.analyze, s.compare, s.derive, s.thresholds, s.launch,
                          s.launch_slurm, s.launch_k8s, s.launch_prolog, s.report})
      if (sub->parsed()) active = sub;
    cmd.kind = Command::Kind::Help;
    cmd.text = active->help();
    return true;
  } catch (const CLI::CallForVersion&) {
    cmd.kind = Command::Kind::Version;
    cmd.text = std::string("collbench ") + COLLBENCH_VERSION + "\n";
    return true;
  } catch (const CLI::ParseError& e) {
    std::string where = "collbench --help";
    for (const auto* sub : {s.run, s.hunt, s.fabric, s.preflight, s.analyze, s.compare, s.thresholds, s.launch, s.report})
      if (sub->parsed()) where = "collbench " + sub->get_name() + " --help";
    for (const auto* sub : {s.launch_slurm, s.launch_k8s, s.launch_prolog})
      if (sub->parsed()) where = "collbench launch " + sub->get_name() + " --help";
    throw UsageError(fmt::format("{}; see '{}'", e.what(), where));
  }
}

void finish_hunt(Command& cmd, RawText& raw) {
  if (cmd.hunt.pattern != "auto" && cmd.hunt.pattern != "pairwise" && cmd.hunt.pattern != "screen")
    throw UsageError(fmt::format("--pattern '{}': use auto, pairwise or screen", cmd.hunt.pattern));
  RunText run_raw;
  run_raw.ops = raw.hunt.op;
  run_raw.backend = raw.hunt.backend;
  finish_run_options(cmd.run, run_raw);
  if (!raw.hunt.b.empty()) cmd.hunt.bytes = parse_size(raw.hunt.b, "-b");
  if (!raw.hunt.budget.empty()) cmd.hunt.budget_s = parse_duration(raw.hunt.budget, "--budget");
  cmd.run.iters.fixed = cmd.hunt.iters;
  if (cmd.run.iters.fixed < 3) throw UsageError("-n must be at least 3: a pair needs a spread to be judged");
  cmd.run.progress = false;
}

void finish_analyze(Command& cmd) {
  if (cmd.analyze.nodes < 0) throw UsageError("--nodes must be positive");
  if (!cmd.analyze.op.empty()) cmd.analyze.op = canonical_op(cmd.analyze.op, "--op");
  const bool one_job = std::all_of(cmd.analyze.files.begin(), cmd.analyze.files.end(),
                                   report::inspector::is_inspector_path);  // Inspector logs: one job
  if (!cmd.analyze.json.empty() && cmd.analyze.files.size() != 1 && !one_job)
    throw UsageError(fmt::format("--json takes the results of one file, and {} were given; analyze them one at a time",
                                 cmd.analyze.files.size()));
}

// The named subcommand's options checked and applied; its kind set.
void finish(CLI::App& app, const Subcommands& s, RawText& raw, Command& cmd) {
  using Kind = Command::Kind;
  finish_verdict_options(cmd.verdict, raw.verdict);
  for (const CLI::App* sub : {s.run, s.hunt, s.fabric, s.preflight, s.analyze, s.derive, s.report, s.launch_slurm,
                              s.launch_k8s, s.launch_prolog})
    if (sub->parsed()) check_output_options(*sub);
  if (s.run->parsed()) {
    finish_run_options(cmd.run, raw.run);
    if (!raw.tolerance.empty()) cmd.tolerance = parse_fraction(raw.tolerance, "--tolerance");
    cmd.kind = Kind::Run;
  } else if (s.hunt->parsed()) {
    finish_hunt(cmd, raw);
    cmd.kind = Kind::Hunt;
  } else if (s.fabric->parsed()) {
    finish_fabric_options(cmd.fabric, raw.fabric);
    cmd.kind = Kind::Fabric;
  } else if (s.preflight->parsed()) {
    finish_preflight_options(cmd, raw.preflight);
    cmd.kind = Kind::Preflight;
  } else if (s.analyze->parsed()) {
    finish_analyze(cmd);
    cmd.kind = Kind::Analyze;
  } else if (s.compare->parsed()) {
    if (!raw.tolerance.empty()) cmd.compare.tolerance = parse_fraction(raw.tolerance, "--tolerance");
    cmd.kind = Kind::Compare;
  } else if (s.launch->parsed()) {
    finish_launch_options(cmd, *s.launch);
    cmd.kind = Kind::Launch;
  } else if (s.report->parsed()) {
    finish_report_options(cmd);
    cmd.kind = Kind::Report;
  } else if (s.derive->parsed()) {
    cmd.derive.margin = parse_fraction(raw.margin, "--margin");
    cmd.kind = Kind::DeriveThresholds;
  } else {
    cmd.kind = Kind::Help;
    cmd.text = app.help();
  }
}

}  // namespace

Command parse_options(const std::vector<std::string>& args) {
  CLI::App app{"collbench: NCCL / MPI collective bandwidth harness with nccl-tests-compatible output and "
               "HyperPod-style verdicts",
               "collbench"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", std::string("collbench ") + COLLBENCH_VERSION);
  app.footer(kExitCodes);
  Command cmd;
  RawText raw;
  const Subcommands s = declare(app, cmd, raw, args);
  if (!parse_or_answer(app, s, args, cmd)) finish(app, s, raw, cmd);
  return cmd;
}

}  // namespace collbench
