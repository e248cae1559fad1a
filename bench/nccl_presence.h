// What this build has of NCCL. nccl_presence.cpp is the one file compiled twice: with
// COLLBENCH_WITH_NCCL into cb_nccl (beside the nccl backend), without it into cb_nccl_absent, over one
// compilation of everything else. An executable links one of the two (CMakeLists.txt): collbench the
// one its build has, the Debian package's binary the mpi-only one.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "bench/agreement.h"
#include "bench/backend.h"
#include "bench/control.h"
#include "bench/gpu_probe.h"
#include "bench/options.h"
#include "bench/watchdog.h"

namespace collbench {

bool built_with_nccl();

// This process's GPUs as CUDA counts them (cudaGetDeviceCount, its error named); nullopt in a build
// without CUDA, where only the device files can tell. Never throws.
std::optional<GpuProbe> probe_cuda_gpus(const std::string& dev_dir);

// The nccl backend for `opts`; throws RunError naming the rebuild in a build without it.
std::unique_ptr<Backend> make_nccl_backend(const RunOptions& opts, Control& control, const FailureReport& report,
                                           Watchdog* watchdog, bool inject_setup_failure);

// "mpi", and in a build with the nccl backend: "nccl" (the library loaded), "cuda_driver", "cuda_runtime".
std::map<std::string, std::string> library_versions();

}  // namespace collbench
