// `collbench launch slurm|k8s`: the instance profile and the wrapped command, into a launch file.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdio>

#include "bench/errors.h"
#include "schedulers/job_env.h"
#include "schedulers/mpijob.h"
#include "schedulers/prolog.h"
#include "schedulers/sbatch.h"
#include "schedulers/shell_quote.h"
#include "schedulers/yaml_text.h"
#include "launcher/job/agree.h"
#include "launcher/commands/commands.h"
#include "launcher/inputs/installed.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/core/journal.h"

namespace collbench {
namespace {

std::optional<report::HardwareProfile> profile_of(const VerdictOptions& v) {
  if (v.instance_type.empty()) return std::nullopt;
  const auto t = thresholds_for(v, v.instance_type);
  if (!t)
    throw UsageError(fmt::format("--instance-type {}: no profile in {}; pass --tasks-per-node / --gpus-per-node "
                                 "instead (no EFA environment is then written)",
                                 v.instance_type, default_thresholds_dir()));
  return t->hardware;
}

launch::InspectorJob inspector_of(const LaunchOptions& o) {
  launch::InspectorJob inspector;
  inspector.dir = o.inspector_dir;
  inspector.plugin = o.inspector_plugin;
  inspector.interval_us = o.inspector_interval_us;
  inspector.analyze = o.inspector_analyze;
  return inspector;
}

// What the MPIJob cannot say in its own fields: the Inspector's folder must be a shared volume.
std::string k8s_notes(const launch::K8sJob& job) {
  if (!job.inspector.enabled()) return "";
  if (!job.inspector_claim.empty())
    return fmt::format("# NCCL Inspector logs: {}/{}-<start time>/ on the claim {}, for collbench analyze.\n",
                       job.inspector.dir, job.name, job.inspector_claim);
  return fmt::format("# NCCL Inspector logs: {}/{}-<start time>/. Every worker must mount a volume they share at {}\n"
                     "# (add it below, or write this file with --inspector-volume-claim), for collbench analyze.\n",
                     job.inspector.dir, job.name, job.inspector.dir);
}

std::string written_by(const LaunchOptions& o) {
  return fmt::format("collbench {} on {}: collbench {}", COLLBENCH_VERSION, now_utc(), launch::shell_words(o.argv));
}

}  // namespace

int launch_command(const Command& cmd) {
  const LaunchOptions& o = cmd.launch;
  const std::string type = cmd.verdict.instance_type;
  const auto hw = profile_of(cmd.verdict);
  const int per_node = o.tasks_per_node > 0 ? o.tasks_per_node : hw->gpus;
  std::vector<launch::EnvSetting> env = launch::efa_environment(type, hw);
  for (const auto& e : o.env)  // checked NAME=VALUE
    env.push_back({e.substr(0, e.find('=')), e.substr(e.find('=') + 1), "given with --env", "this command line"});
  std::string text;
  bool executable = false;
  if (o.target == "prolog") {
    launch::PrologJob job;
    job.ranks = per_node;
    job.collbench = o.collbench;
    job.mpirun = o.mpirun;
    job.budget = o.budget;
    job.extra_args = o.command;
    job.drain = o.drain;
    job.log_dir = o.log_dir;
    job.env = env;
    job.written_by = written_by(o);
    text = launch::render_prolog(job);
    executable = true;
  } else if (o.target == "slurm") {
    launch::SlurmJob job;
    job.job_name = o.job_name;
    job.nodes = o.nodes;
    job.tasks_per_node = per_node;
    job.instance_type = type;
    job.partition = o.partition;
    job.time_limit = o.time_limit;
    job.request_gpus = o.request_gpus;
    job.container = o.container;
    job.launcher = o.launcher;
    job.output_dir = o.output_dir;
    job.collbench = o.collbench;
    job.args = o.command;
    job.own_command = o.own_command;
    job.inspector = inspector_of(o);
    for (auto& e : launch::open_mpi_environment()) env.push_back(std::move(e));
    job.env = env;
    job.written_by = written_by(o);
    text = launch::render_sbatch(job);
    executable = true;
  } else {
    launch::K8sJob job;
    job.name = o.job_name;
    job.kube_namespace = o.kube_namespace;
    job.nodes = o.nodes;
    job.gpus_per_node = per_node;
    job.efa_per_node = hw ? hw->efa_devices : 0;
    job.instance_type = type;
    job.image = o.image;
    job.collbench = o.collbench;
    job.args = o.command;
    job.own_command = o.own_command;
    job.inspector = inspector_of(o);
    job.inspector_claim = o.inspector_claim;
    for (auto& e : launch::open_mpi_environment()) env.push_back(std::move(e));
    job.env = env;
    job.written_by = written_by(o);
    text = fmt::format("# {}\n", job.written_by) + k8s_notes(job) + launch::to_yaml(launch::render_mpijob(job));
  }
  if (o.output.empty()) {
    std::fputs(text.c_str(), stdout);
    return kExitOk;
  }
  report::write_file_atomically(o.output, text);
  if (executable) ::chmod(o.output.c_str(), 0755);
  std::fprintf(stderr, "collbench: wrote %s\n", o.output.c_str());
  return kExitOk;
}

}  // namespace collbench
