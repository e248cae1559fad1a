#include "schedulers/sbatch.h"

#include <fmt/format.h>

#include "schedulers/shell_quote.h"

namespace collbench::launch {

std::string render_sbatch(const SlurmJob& job) {
  const std::string command = shell_quote(job.collbench) + " " + shell_words(job.args) + " --json \"$result\"";
  std::string s = "#!/bin/bash\n";
  s += fmt::format("# collbench on {} node(s){}: {}\n", job.nodes,
                   job.instance_type.empty() ? "" : " of " + job.instance_type, shell_words(job.args));
  s += fmt::format("# Written by {}\n", job.written_by);
  s += fmt::format("# Submit with: sbatch FILE. {} must exist on a filesystem every node shares: the job log and\n"
                   "# the results document (collbench-JOBID.json) go there. Exit code: collbench's (0 pass, 1 could\n"
                   "# not run, 2 bad input, 3 a [FAIL]).\n",
                   job.output_dir);
  s += fmt::format("#SBATCH --job-name={}\n", job.job_name);
  s += fmt::format("#SBATCH --nodes={}\n", job.nodes);
  s += fmt::format("#SBATCH --ntasks-per-node={}\n", job.tasks_per_node);
  if (job.request_gpus) s += fmt::format("#SBATCH --gpus-per-node={}\n", job.tasks_per_node);
  if (!job.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", job.partition);
  if (!job.time_limit.empty()) s += fmt::format("#SBATCH --time={}\n", job.time_limit);
  s += "#SBATCH --exclusive\n#SBATCH --wait-all-nodes=1\n";
  s += fmt::format("#SBATCH --output={}/%x-%j.out\n", job.output_dir);
  s += "set -uo pipefail\n\n";
  s += fmt::format("out_dir={}\nresult=\"$out_dir/collbench-$SLURM_JOB_ID.json\"\n\n", shell_quote(job.output_dir));

  s += "## Environment\n";
  if (job.instance_type.empty()) s += "# No instance type was given, so no EFA settings (collbench launch --instance-type).\n";
  s += shell_exports(job.env) + "\n";
  s += "## Each node once: its hostname and EC2 instance id (the board asset tag; 'unknown' off EC2)\n"
       "srun --ntasks-per-node=1 --ntasks=\"$SLURM_JOB_NUM_NODES\" bash -c \\\n"
       "  'id=$(tr -d \" \" 2>/dev/null </sys/devices/virtual/dmi/id/board_asset_tag); "
       "echo \"node $(hostname): ${id:-unknown}\"'\n\n";

  s += "## Launch: srun where Slurm has its PMIx plugin, else Open MPI's mpirun inside this allocation\n";
  s += fmt::format("launcher=${{COLLBENCH_LAUNCHER:-{}}}\n", job.container.empty() ? job.launcher : "srun");
  s += "if [ \"$launcher\" = auto ]; then\n"
       "  if srun --mpi=list 2>&1 | grep -qw pmix; then launcher=srun; else launcher=mpirun; fi\n"
       "fi\n"
       "echo \"collbench: launching $SLURM_NTASKS ranks on $SLURM_JOB_NUM_NODES node(s) with $launcher\"\n";
  std::string container;
  if (!job.container.empty())
    container = fmt::format(" --container-image={} --container-mounts={}", shell_quote(job.container),
                            shell_quote(job.output_dir + ":" + job.output_dir));
  std::string forwarded;
  for (const auto& e : job.env) forwarded += " -x " + e.name;
  s += "case \"$launcher\" in\n";
  s += fmt::format("  srun) srun --mpi=pmix --cpu-bind=none{} {} ;;\n", container, command);
  s += fmt::format("  mpirun) mpirun -np \"$SLURM_NTASKS\" --map-by ppr:{}:node --bind-to none{} {} ;;\n",
                   job.tasks_per_node, forwarded, command);
  s += "  *) echo \"collbench: COLLBENCH_LAUNCHER=$launcher: use auto, srun or mpirun\" >&2; exit 2 ;;\n";
  s += "esac\n";
  s += "rc=$?\n"
       "echo \"collbench: exit code $rc; results: $result\"\n"
       "exit \"$rc\"\n";
  return s;
}

}  // namespace collbench::launch
