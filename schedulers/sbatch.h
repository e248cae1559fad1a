// `collbench launch slurm`: an sbatch script that runs one collbench command across an allocation,
// or the user's own program (--command) with the same environment and launcher, optionally with
// the NCCL Inspector writing the logs `collbench analyze` reads.
#pragma once

#include <string>
#include <vector>

#include "schedulers/inspector_env.h"
#include "schedulers/job_env.h"

namespace collbench::launch {

struct SlurmJob {
  std::string job_name = "collbench";
  int nodes = 1;
  int tasks_per_node = 1;      // one rank per GPU
  std::string instance_type;   // as the header says it; may be empty
  std::string partition;       // empty: the cluster's default
  std::string time_limit;      // empty: the partition's
  bool request_gpus = false;   // #SBATCH --gpus-per-node (clusters with GPU GRES)
  std::string container;       // Pyxis/enroot image; empty: run on the host
  std::string launcher = "auto";  // auto (srun with PMIx when Slurm offers it, else mpirun), srun or mpirun
  std::string output_dir;      // absolute; job log and results, on a filesystem every node shares
  std::string collbench = "collbench";  // the binary as the nodes find it
  std::vector<std::string> args;        // the collbench command, without the results option
  bool own_command = false;             // args are the user's program and its arguments, run as they are
  InspectorJob inspector;               // the NCCL Inspector on every rank; off unless its dir is set
  std::vector<EnvSetting> env;
  std::string written_by;      // the generating command line and date, for the header
};

std::string render_sbatch(const SlurmJob& job);

}  // namespace collbench::launch
