#include "schedulers/sbatch.h"

#include <fmt/format.h>

#include "schedulers/shell_quote.h"

namespace collbench::launch {
namespace {

// NVIDIA/nccl at 5067397c.
constexpr const char* kInspectorCc =
    "https://github.com/NVIDIA/nccl/blob/5067397c/plugins/profiler/inspector/inspector.cc";
constexpr const char* kInspectorReadme =
    "https://github.com/NVIDIA/nccl/blob/5067397c/plugins/profiler/inspector/README.md";

std::string header(const SlurmJob& job) {
  const std::string on = fmt::format("{} node(s){}", job.nodes, job.instance_type.empty() ? "" : " of " + job.instance_type);
  std::string s = "#!/bin/bash\n";
  if (job.own_command) {
    s += fmt::format("# {} on {}, launched by collbench\n", shell_words(job.args), on);
    s += fmt::format("# Written by {}\n", job.written_by);
    s += fmt::format("# Submit with: sbatch FILE. {} must exist on a filesystem every node shares: the job log goes\n"
                     "# there. Exit code: the command's (its job step's).\n",
                     job.output_dir);
  } else {
    s += fmt::format("# collbench on {}: {}\n", on, shell_words(job.args));
    s += fmt::format("# Written by {}\n", job.written_by);
    s += fmt::format("# Submit with: sbatch FILE. {} must exist on a filesystem every node shares: the job log and\n"
                     "# the results document (collbench-JOBID.json) go there. Exit code: collbench's (0 pass, 1 could\n"
                     "# not run, 2 bad input, 3 a [FAIL]).\n",
                     job.output_dir);
  }
  if (job.inspector.enabled())
    s += fmt::format("# NCCL Inspector logs: {}/JOBID/, one file per process, for collbench analyze.\n",
                     job.inspector.dir);
  s += fmt::format("#SBATCH --job-name={}\n", job.job_name);
  s += fmt::format("#SBATCH --nodes={}\n", job.nodes);
  s += fmt::format("#SBATCH --ntasks-per-node={}\n", job.tasks_per_node);
  if (job.request_gpus) s += fmt::format("#SBATCH --gpus-per-node={}\n", job.tasks_per_node);
  if (!job.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", job.partition);
  if (!job.time_limit.empty()) s += fmt::format("#SBATCH --time={}\n", job.time_limit);
  s += "#SBATCH --exclusive\n#SBATCH --wait-all-nodes=1\n";
  s += fmt::format("#SBATCH --output={}/%x-%j.out\n", job.output_dir);
  s += "set -uo pipefail\n\n";
  s += fmt::format("out_dir={}\n", shell_quote(job.output_dir));
  if (!job.own_command) s += "result=\"$out_dir/collbench-$SLURM_JOB_ID.json\"\n";
  return s + "\n";
}

// The plugin's variables, and the job's own folder for its logs, made before any rank starts.
std::string inspector_block(const InspectorJob& inspector) {
  std::string s = "## NCCL Inspector: every process writes its collectives to <host>-pid<pid>.log in the job's folder\n";
  s += shell_exports(inspector_environment(inspector));
  s += fmt::format(
      "# One folder per job (collbench analyze reads a folder as one job), made here once: the plugin makes\n"
      "# only its last level, and a rank that loses the race to make it writes no log\n#   source: {} (lines 408-443)\n"
      "inspector_dir={}/\"$SLURM_JOB_ID\"\n"
      "mkdir -p \"$inspector_dir\" || {{ echo \"collbench: cannot create the Inspector folder $inspector_dir\" >&2; "
      "exit 1; }}\n"
      "# where the plugin writes\n#   source: {} (lines 83-84, 141-144)\n"
      "export {}=\"$inspector_dir\"\n",
      kInspectorCc, shell_quote(inspector.dir), kInspectorReadme, kInspectorDumpDir);
  return s + "\n";
}

std::string launch_block(const SlurmJob& job) {
  const std::string command = job.own_command
                                  ? shell_words(job.args)
                                  : shell_quote(job.collbench) + " " + shell_words(job.args) + " --json \"$result\"";
  std::string s = "## Launch: srun where Slurm has its PMIx plugin, else Open MPI's mpirun inside this allocation\n";
  s += fmt::format("launcher=${{COLLBENCH_LAUNCHER:-{}}}\n", job.container.empty() ? job.launcher : "srun");
  s += "if [ \"$launcher\" = auto ]; then\n"
       "  if srun --mpi=list 2>&1 | grep -qw pmix; then launcher=srun; else launcher=mpirun; fi\n"
       "fi\n"
       "echo \"collbench: launching $SLURM_NTASKS ranks on $SLURM_JOB_NUM_NODES node(s) with $launcher\"\n";
  std::string container;
  if (!job.container.empty()) {
    std::string mounts = job.output_dir + ":" + job.output_dir;
    if (job.inspector.enabled()) mounts += "," + job.inspector.dir + ":" + job.inspector.dir;
    container = fmt::format(" --container-image={} --container-mounts={}", shell_quote(job.container), shell_quote(mounts));
  }
  std::string forwarded;
  for (const auto& e : job.env) forwarded += " -x " + e.name;
  for (const auto& e : inspector_environment(job.inspector)) forwarded += " -x " + e.name;
  if (job.inspector.enabled()) forwarded += std::string(" -x ") + kInspectorDumpDir;
  s += "case \"$launcher\" in\n";
  s += fmt::format("  srun) srun --mpi=pmix --cpu-bind=none{} {} ;;\n", container, command);
  s += fmt::format("  mpirun) mpirun -np \"$SLURM_NTASKS\" --map-by ppr:{}:node --bind-to none{} {} ;;\n",
                   job.tasks_per_node, forwarded, command);
  s += "  *) echo \"collbench: COLLBENCH_LAUNCHER=$launcher: use auto, srun or mpirun\" >&2; exit 2 ;;\n";
  return s + "esac\nrc=$?\n";
}

// After the job step: where the Inspector's logs are and how to judge them (or their judgement);
// the job's exit code stays its step's.
std::string inspector_end(const SlurmJob& job) {
  const std::string cb = shell_quote(job.collbench);
  std::string s = "if [ -z \"$(ls -A \"$inspector_dir\" 2>/dev/null)\" ]; then\n"
                  "  echo \"collbench: no NCCL Inspector log in $inspector_dir: did NCCL load $NCCL_PROFILER_PLUGIN? "
                  "(NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,PROFILE says)\" >&2\n";
  if (job.inspector.analyze)
    s += fmt::format("else\n"
                     "  echo \"collbench: judging the NCCL Inspector logs in $inspector_dir\"\n"
                     "  {} analyze \"$inspector_dir\" --json \"$out_dir/collbench-analyze-$SLURM_JOB_ID.json\"\n"
                     "  echo \"collbench: analyze exit code $?; the job's exit code stays the step's ($rc)\"\n",
                     cb);
  else
    s += fmt::format("else\n"
                     "  printf 'collbench: NCCL Inspector logs in %s; judge them with: %s analyze %s\\n' "
                     "\"$inspector_dir\" {} \"$inspector_dir\"\n",
                     cb);
  return s + "fi\n";
}

}  // namespace

std::string render_sbatch(const SlurmJob& job) {
  std::string s = header(job);
  s += "## Environment\n";
  if (job.instance_type.empty()) s += "# No instance type was given, so no EFA settings (collbench launch --instance-type).\n";
  s += shell_exports(job.env) + "\n";
  if (job.inspector.enabled()) s += inspector_block(job.inspector);
  s += "## Each node once: its hostname and EC2 instance id (the board asset tag; 'unknown' off EC2)\n"
       "srun --ntasks-per-node=1 --ntasks=\"$SLURM_JOB_NUM_NODES\" bash -c \\\n"
       "  'id=$(tr -d \" \" 2>/dev/null </sys/devices/virtual/dmi/id/board_asset_tag); "
       "echo \"node $(hostname): ${id:-unknown}\"'\n\n";
  s += launch_block(job);
  if (job.own_command)
    s += "echo \"collbench: exit code $rc\"\n";
  else
    s += "echo \"collbench: exit code $rc; results: $result\"\n";
  if (job.inspector.enabled()) s += inspector_end(job);
  return s + "exit \"$rc\"\n";
}

}  // namespace collbench::launch
