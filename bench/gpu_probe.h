// What each process found when it looked for GPUs, and the backend `--backend auto` picks from what
// all processes found. Pure: the CUDA call that fills a GpuProbe is in the nccl backend.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench {

struct GpuProbe {
  int count = 0;             // usable GPUs (cudaGetDeviceCount)
  std::string cuda_error;    // "cudaErrorInsufficientDriver: ..." when cudaGetDeviceCount failed
  bool device_files = false; // /dev/nvidia<N> exist: a GPU is there even when CUDA cannot use it
};

// Where the device files are: $COLLBENCH_DEV_DIR (tests point it at a fake tree), else /dev.
std::string device_dir();
// <dev_dir>/nvidia0, nvidia1, ... exist.
bool nvidia_device_files_present(const std::string& dev_dir = device_dir());
// How many of them (the GPU count of a build without CUDA).
int nvidia_device_file_count(const std::string& dev_dir = device_dir());

// A GPU the driver shows (device files) that CUDA fails on: a broken node. cudaErrorNoDevice is
// not one: CUDA_VISIBLE_DEVICES="" or a job's cgroup hides GPUs on purpose, with the files left.
bool gpu_unusable(const GpuProbe& p);

// "8 GPU(s)", "no GPU visible", "a GPU is present but CUDA cannot use it (cudaError...: ...)".
std::string describe_probe(const GpuProbe& p);

struct AutoChoice {
  bool nccl = false;
  std::string reason;                // printed in the header: why this backend
  std::optional<std::string> error;  // this process cannot follow the others: the run stops (exit 1)
};

// --backend auto on one process, given whether every / any process has a usable GPU. All or none:
// nccl or mpi. Some but not all: the processes without one fail, naming why, so a sick node stops
// the run instead of being measured on a different backend than its peers (or hanging them).
AutoChoice decide_auto(const GpuProbe& mine, bool all_have_gpus, bool any_has_gpus);

// The GPUs (PCI bus ids) each process on one node drives, and the MPI rank of each process. Why
// process `me` cannot go on, when one of its GPUs is also driven by another process (two ranks
// on one GPU make NCCL fail only the ranks that share it, leaving the rest waiting in init).
std::optional<std::string> gpu_shared(const std::vector<std::vector<std::string>>& bus_ids,
                                      const std::vector<int>& mpi_ranks, std::size_t me);

}  // namespace collbench
