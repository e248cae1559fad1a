// `collbench launch slurm`: an sbatch script that runs one collbench command across an allocation.
#pragma once

#include <string>
#include <vector>

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
  std::vector<EnvSetting> env;
  std::string written_by;      // the generating command line and date, for the header
};

std::string render_sbatch(const SlurmJob& job);

}  // namespace collbench::launch
