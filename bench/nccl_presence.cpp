#include "bench/nccl_presence.h"

#include "bench/errors.h"
#include "bench/versions.h"

#if COLLBENCH_WITH_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>

#include "bench/nccl_backend.h"
#endif

namespace collbench {

bool built_with_nccl() {
#if COLLBENCH_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::optional<GpuProbe> probe_cuda_gpus([[maybe_unused]] const std::string& dev_dir) {
#if COLLBENCH_WITH_NCCL
  return probe_gpus(dev_dir);
#else
  return std::nullopt;
#endif
}

std::unique_ptr<Backend> make_nccl_backend([[maybe_unused]] const RunOptions& opts, [[maybe_unused]] Control& control,
                                           [[maybe_unused]] const FailureReport& report,
                                           [[maybe_unused]] Watchdog* watchdog,
                                           [[maybe_unused]] bool inject_setup_failure) {
#if COLLBENCH_WITH_NCCL
  return std::make_unique<NcclBackend>(
      NcclSetup{opts.gpus, opts.timeout_s, inject_setup_failure, report, watchdog, opts.graph_calls}, control);
#else
  throw RunError("--backend nccl: this collbench was built without CUDA/NCCL; rebuild where nvcc and NCCL are found");
#endif
}

std::map<std::string, std::string> library_versions() {
  std::map<std::string, std::string> v;
  if (std::string mpi = mpi_library_version(); !mpi.empty()) v["mpi"] = std::move(mpi);
#if COLLBENCH_WITH_NCCL
  if (int code = 0; ncclGetVersion(&code) == ncclSuccess && code > 0) v["nccl"] = nccl_version_text(code);
  if (int d = 0; cudaDriverGetVersion(&d) == cudaSuccess && d > 0) v["cuda_driver"] = cuda_version_text(d);
  if (int r = 0; cudaRuntimeGetVersion(&r) == cudaSuccess && r > 0) v["cuda_runtime"] = cuda_version_text(r);
#endif
  return v;
}

}  // namespace collbench
