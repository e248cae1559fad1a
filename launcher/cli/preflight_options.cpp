#include "launcher/cli/preflight_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "bench/errors.h"
#include "launcher/cli/parse.h"
#include "bench/sizes.h"
#include "launcher/cli/run_options.h"

namespace collbench {

constexpr const char* kPhases = "node, world, pairs, fabric";

CLI::App* add_preflight_subcommand(CLI::App& app, Command& cmd, PreflightText& raw) {
  CLI::App* p = app.add_subcommand(
      "preflight", "Go or no-go before a job, in one launch: environment audit, every node's own sweep, the world "
                   "sweep, a pair screen for stragglers and the fabric's pairs, one verdict within one budget");
  p->add_option("--budget", raw.budget,
                "Wall time shared by the phases, e.g. 600, 90s, 10m (set-up comes on top); printed as a plan with "
                "each phase's share before anything is measured")
      ->default_str("10m");
  p->add_option("--valid-for", raw.valid_for, "How long the verdict holds: valid_until in the JSON is this long "
                                                 "after the end")
      ->default_str("24h");
  p->add_option("--json", cmd.preflight.json,
                "Write the collbench.preflight/1 document here (each phase is appended to FILE.partial as it ends)");
  p->add_option("--skip", raw.skip, std::string("Phases to leave out, comma separated: ") + kPhases);
  p->add_option("-e,--maxbytes", raw.e,
                "Largest size of the sweeps (default: the largest size the instance's thresholds judge, else 256M)");
  p->add_option("--backend", raw.backend, "auto (nccl when a GPU is visible, else mpi), nccl or mpi")
      ->default_str("auto");
  p->add_option("-g,--ngpus", cmd.run.gpus, "GPUs driven by each process (nccl backend)")->capture_default_str();
  p->add_option("--provider", cmd.preflight.provider, "libfabric provider of the fabric phase, or auto")
      ->capture_default_str();
  p->add_option("--timeout", raw.timeout,
                "Seconds one step may take before the run is ended as hung (default: a quarter of the budget, 30 to "
                "300)");
  p->add_flag("--no-progress", raw.no_progress, "No progress line on stderr");
  p->footer(
      "Exit codes: 0 go: ran, nothing failed; 1 could not run (set-up failed, hang, dead rank: a SETUP_ERROR, never a "
      "node accusation); 2 bad usage or input; 3 no-go: at least one [FAIL] (with --fail-on warn, a [WARN] too).\n"
      "Examples:\n  mpirun -np 16 -N 8 collbench preflight\n"
      "  mpirun -np 4 --oversubscribe collbench preflight --backend mpi --budget 2m -e 1M");
  return p;
}

void finish_preflight_options(Command& cmd, PreflightText& raw) {
  PreflightOptions& o = cmd.preflight;
  if (!raw.budget.empty()) o.budget_s = parse_duration(raw.budget, "--budget");
  if (!raw.valid_for.empty()) o.valid_for_s = parse_duration(raw.valid_for, "--valid-for");
  if (!raw.e.empty()) o.max_bytes = parse_size(raw.e, "-e");
  if (o.max_bytes > 0 && o.max_bytes < 8) throw UsageError("-e: give at least 8 bytes");
  std::stringstream in(raw.skip);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) continue;
    if (item != "node" && item != "world" && item != "pairs" && item != "fabric")
      throw UsageError(fmt::format("--skip: unknown phase '{}'; choose from {}", item, kPhases));
    o.skip.push_back(item);
  }
  if (o.provider.empty()) throw UsageError("--provider: give a provider name (fi_info -l lists them) or auto");
  RunText run_raw;
  run_raw.backend = raw.backend;
  run_raw.no_progress = raw.no_progress;
  finish_run_options(cmd.run, run_raw);
  cmd.run.timeout_s = std::clamp(o.budget_s / 4, 30.0, 300.0);
  if (!raw.timeout.empty()) cmd.run.timeout_s = parse_duration(raw.timeout, "--timeout");
}

}  // namespace collbench
