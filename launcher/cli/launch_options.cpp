#include "launcher/cli/launch_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "bench/errors.h"
#include "schedulers/k8s_names.h"
#include "schedulers/mpijob.h"
#include "schedulers/prolog.h"
#include "launcher/cli/launch_own_options.h"
#include "launcher/cli/parse.h"

namespace collbench {
namespace {

constexpr const char* kCommandHelp =
    "After --: the collbench command to run, e.g. -- preflight --budget 10m (run, hunt, fabric or preflight; its "
    "results document is written by the job, so leave out --json); with --command, your own program and its "
    "arguments";

void add_env_option(CLI::App& sub, LaunchOptions& o) {
  sub.add_option("--env", o.env,
                 "NAME=VALUE to export too, after the profile's settings (repeat it), e.g. --env NCCL_DEBUG=INFO")
      ->allow_extra_args(false);
}

// --env NAME=VALUE: a shell variable name, so the files can export it as it is.
void check_env(const std::vector<std::string>& env) {
  for (const auto& e : env) {
    const std::size_t eq = e.find('=');
    const std::string name = e.substr(0, eq);
    const bool ok = eq != std::string::npos && !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) &&
                    std::all_of(name.begin(), name.end(), [](char c) {
                      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                    });
    if (!ok) throw UsageError(fmt::format("--env '{}': give NAME=VALUE with NAME made of letters, digits and '_'", e));
  }
}

void add_common(CLI::App& sub, Command& cmd) {
  LaunchOptions& o = cmd.launch;
  sub.add_option("--nodes", o.nodes, "Nodes to run on")->required();
  sub.add_option("--instance-type", cmd.verdict.instance_type,
                 "EC2 instance type of the nodes: its profile in thresholds/ gives the GPUs (one rank each), the EFA "
                 "devices and the EFA environment");
  sub.add_option("--collbench", o.collbench, "The collbench binary as the nodes find it")->capture_default_str();
  sub.add_option("-o,--output", o.output, "Write the file here (default: standard output)");
  add_env_option(sub, o);
  sub.add_option("command", o.command, kCommandHelp)->required();
}

bool plain(const std::string& s, const std::string& allowed_punctuation) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || allowed_punctuation.find(c) != std::string::npos;
  });
}

// The wrapped command must parse, measure, and leave the results option to the job.
std::string check_wrapped(const std::vector<std::string>& command) {
  // -o names fabric's results file; for run and hunt it is the reduction (-o max).
  const bool o_is_output = !command.empty() && command.front() == "fabric";
  for (const auto& a : command)
    if (a == "--json" || a.rfind("--json=", 0) == 0 ||
        (o_is_output && (a == "-o" || a == "--output" || a.rfind("--output=", 0) == 0)))
      throw UsageError(fmt::format("the command after -- names its results file ({}); the job writes it (collbench-"
                                   "<job id>.json), so leave {} out",
                                   a, a.substr(0, a.find('='))));
  Command inner;
  try {
    inner = parse_options(command);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("the command after --: {} (your own program? add --command)", e.what()));
  }
  using Kind = Command::Kind;
  if (inner.kind != Kind::Run && inner.kind != Kind::Hunt && inner.kind != Kind::Fabric && inner.kind != Kind::Preflight)
    throw UsageError(fmt::format("the command after -- is '{}'; launch runs one that measures: run, hunt, fabric or "
                                 "preflight, e.g. -- preflight --budget 10m (your own program? add --command)",
                                 command.empty() ? "" : command.front()));
  return command.front();
}

}  // namespace

CLI::App* add_launch_subcommand(CLI::App& app, Command& cmd) {
  LaunchOptions& o = cmd.launch;
  CLI::App* launch = app.add_subcommand("launch", "Write the file that runs a collbench command on a scheduler: an "
                                                  "sbatch script for Slurm, or a Kubeflow MPIJob for Kubernetes; or "
                                                  "your own program (--command), with NCCL's Inspector on "
                                                  "(--inspector DIR) for collbench analyze");
  launch->require_subcommand(1);
  launch->footer("Exit codes: 0 written; 2 bad usage or input (nothing written). See 'collbench launch slurm --help' "
                 "and 'collbench launch k8s --help' (--command, --inspector and its options are there).");

  CLI::App* slurm = launch->add_subcommand(
      "slurm", "An sbatch script: one rank per GPU, srun with PMIx where Slurm has it (else mpirun in the "
               "allocation), the instance type's EFA environment with the source of each variable, a line per node "
               "with its host name and instance id, and collbench's exit code as the job's");
  add_common(*slurm, cmd);
  add_own_job_options(*slurm, o, true);
  slurm->add_option("--tasks-per-node", o.tasks_per_node, "Ranks per node (default: the instance profile's GPUs)");
  slurm->add_option("--partition", o.partition, "Slurm partition (default: the cluster's default)");
  slurm->add_option("--time", o.time_limit, "Slurm time limit, e.g. 30:00 (default: the partition's)");
  slurm->add_option("--job-name", o.job_name, "Job name (default: collbench-<command>)");
  slurm->add_option("--container", o.container, "Run in this container image with Pyxis/enroot (srun --container-image)");
  slurm->add_option("--launcher", o.launcher, "auto, srun or mpirun; the job's COLLBENCH_LAUNCHER overrides it")
      ->capture_default_str();
  slurm->add_flag("--gpus-per-node", o.request_gpus, "Also request the GPUs as GRES (#SBATCH --gpus-per-node)");
  slurm->add_option("--output-dir", o.output_dir,
                    "Folder, on a filesystem every node shares, for the job log and results (default: the current one)");
  slurm->footer("Exit codes: 0 written; 2 bad usage or input (nothing written).\nExample:\n  collbench launch slurm "
                "--nodes 16 --instance-type p5.48xlarge -o preflight.sbatch -- preflight --budget 10m\n"
                "  sbatch preflight.sbatch\nYour own job with the NCCL Inspector (docs/launch.md):\n  collbench launch slurm "
                "--nodes 16 --instance-type p5.48xlarge --inspector /fsx/inspector --inspector-plugin "
                "/opt/nccl/lib/libnccl-profiler-inspector.so -o train.sbatch --command -- python train.py");

  CLI::App* k8s = launch->add_subcommand(
      "k8s", "A Kubeflow MPIJob (kubeflow.org/v2beta1): one worker per node with its GPUs, EFA devices, hugepages, "
             "/dev/shm in memory and IPC_LOCK, placed by node.kubernetes.io/instance-type; the launcher runs mpirun "
             "and prints the results document to its log");
  add_common(*k8s, cmd);
  add_own_job_options(*k8s, o, false);
  k8s->add_option("--image", o.image, "Container image with collbench, Open MPI, NCCL and the EFA libraries")->required();
  k8s->add_option("--namespace", o.kube_namespace, "Kubernetes namespace (default: the current context's)");
  k8s->add_option("--name", o.job_name, "MPIJob name (default: collbench-<command>)");
  k8s->add_option("--gpus-per-node", o.tasks_per_node, "GPUs (ranks) per worker (default: the instance profile's)");
  k8s->footer("Exit codes: 0 written; 2 bad usage or input (nothing written).\nExample:\n  collbench launch k8s "
              "--nodes 4 --instance-type p5.48xlarge --image REGISTRY/collbench:TAG -o preflight.yaml -- preflight\n"
              "  kubectl apply -f preflight.yaml\nYour own job with the NCCL Inspector, its logs on a shared claim:\n"
              "  collbench launch k8s --nodes 4 --instance-type p5.48xlarge --image REGISTRY/train:TAG --inspector "
              "/inspector --inspector-plugin inspector --inspector-volume-claim fsx-claim -o train.yaml --command -- "
              "python train.py");
  CLI::App* prolog = launch->add_subcommand(
      "prolog", "A Slurm Prolog / HealthCheckProgram script: the environment audit and this node's own sweep "
                "(preflight on the node alone); on a [FAIL] it prints the scontrol drain line, and runs it only "
                "when written with --drain; it always exits 0");
  prolog->add_option("--instance-type", cmd.verdict.instance_type,
                     "EC2 instance type of the nodes: its profile gives the GPUs (local ranks) and the EFA settings");
  prolog->add_option("--tasks-per-node", o.tasks_per_node, "Local ranks (default: the instance profile's GPUs)");
  prolog->add_option("--budget", o.budget, "The check's --budget")->capture_default_str();
  prolog->add_flag("--drain", o.drain, "Run the drain line on a [FAIL] (default: print it only)");
  prolog->add_option("--log-dir", o.log_dir, "Folder on the node for the check's output")->capture_default_str();
  prolog->add_option("--collbench", o.collbench, "The collbench binary on the nodes")->capture_default_str();
  prolog->add_option("--mpirun", o.mpirun, "Open MPI's mpirun on the nodes")->capture_default_str();
  prolog->add_option("-o,--output", o.output, "Write the script here (default: standard output)");
  add_env_option(*prolog, o);
  prolog->add_option("options", o.command, "After --: more preflight options for the check, e.g. -- --backend mpi");
  prolog->footer("Exit codes: 0 written; 2 bad usage or input (nothing written).\nExample:\n  collbench launch "
                 "prolog --instance-type p5.48xlarge -o /etc/slurm/collbench-prolog.sh\n"
                 "  # slurm.conf: Prolog=/etc/slurm/collbench-prolog.sh and PrologFlags=Alloc");
  return launch;
}

void finish_launch_options(Command& cmd, const CLI::App& launch) {
  LaunchOptions& o = cmd.launch;
  o.target = launch.get_subcommand("slurm")->parsed() ? "slurm" : launch.get_subcommand("k8s")->parsed() ? "k8s" : "prolog";
  const bool slurm = o.target == "slurm";
  check_env(o.env);
  if (o.target == "prolog") {
    check_wrapped(launch::prolog_check_command(o.budget, o.command));
    if (o.tasks_per_node < 0 || (o.tasks_per_node == 0 && cmd.verdict.instance_type.empty()))
      throw UsageError("give --instance-type (its profile says how many GPUs a node has) or --tasks-per-node");
    if (o.log_dir.empty() || o.log_dir.front() != '/')
      throw UsageError(fmt::format("--log-dir '{}': give an absolute folder on the nodes", o.log_dir));
    return;
  }
  if (o.nodes < 1) throw UsageError(fmt::format("--nodes {}: give at least 1", o.nodes));
  const CLI::App& sub_app = *launch.get_subcommand(o.target);
  finish_own_job_options(o, sub_app, slurm, !o.container.empty());
  if (!o.own_command) {
    const std::string sub = check_wrapped(o.command);
    if (o.job_name.empty()) o.job_name = "collbench-" + sub;
  }
  if (o.tasks_per_node < 0 || (o.tasks_per_node == 0 && cmd.verdict.instance_type.empty()))
    throw UsageError(fmt::format("give --instance-type (its profile says how many GPUs a node has) or {}",
                                 slurm ? "--tasks-per-node" : "--gpus-per-node"));
  if (slurm) {
    if (o.launcher != "auto" && o.launcher != "srun" && o.launcher != "mpirun")
      throw UsageError(fmt::format("--launcher '{}': use auto, srun or mpirun", o.launcher));
    if (!o.container.empty() && o.launcher == "mpirun")
      throw UsageError("--container runs the ranks with Pyxis, which is srun's: drop --launcher mpirun");
    if (!plain(o.job_name, "._-")) throw UsageError(fmt::format("--job-name '{}': use letters, digits, '.', '_', '-'", o.job_name));
    if (!o.partition.empty() && !plain(o.partition, "._,-"))
      throw UsageError(fmt::format("--partition '{}': use letters, digits, '.', '_', '-' (',' between several)", o.partition));
    if (!o.time_limit.empty() && !plain(o.time_limit, ":-"))
      throw UsageError(fmt::format("--time '{}': give a Slurm time such as 30, 30:00 or 1-00:00:00", o.time_limit));
    namespace fs = std::filesystem;
    const fs::path dir = o.output_dir.empty() ? fs::current_path() : fs::absolute(o.output_dir);
    if (!fs::is_directory(dir))
      throw UsageError(fmt::format("--output-dir {}: no such folder; create it on a filesystem every node shares",
                                   dir.string()));
    o.output_dir = dir.lexically_normal().string();
    if (o.output_dir.find_first_of(" \t\n%") != std::string::npos)
      throw UsageError(fmt::format("--output-dir '{}': #SBATCH --output cannot hold spaces or '%'; choose a plain path",
                                   o.output_dir));
  } else {
    if (const std::string why = launch::label_problem(o.job_name, launch::max_job_name_length(o.nodes)); !why.empty())
      throw UsageError(fmt::format("--name '{}' is not a valid MPIJob name: {} (RFC 1123 label, short enough for "
                                   "'{}-worker-{}'); e.g. --name {}",
                                   o.job_name, why, o.job_name, o.nodes - 1,
                                   launch::as_label(o.job_name, launch::max_job_name_length(o.nodes))));
    if (!o.kube_namespace.empty())
      if (const std::string why = launch::label_problem(o.kube_namespace); !why.empty())
        throw UsageError(fmt::format("--namespace '{}' is not a valid namespace: {} (RFC 1123 label); e.g. --namespace {}",
                                     o.kube_namespace, why, launch::as_label(o.kube_namespace)));
  }
}

}  // namespace collbench
