#include "bench/backend_factory.h"

#include <fmt/format.h>

#include "bench/errors.h"
#include "bench/mpi_backend.h"
#if COLLBENCH_WITH_NCCL
#include "bench/nccl_backend.h"
#endif

namespace collbench {
namespace {

int gpus_visible() {
#if COLLBENCH_WITH_NCCL
  return visible_gpu_count();
#else
  return 0;
#endif
}

std::unique_ptr<Backend> nccl_backend([[maybe_unused]] const RunOptions& opts) {
#if COLLBENCH_WITH_NCCL
  return make_nccl_backend(opts.gpus, opts.timeout_s);
#else
  throw RunError("--backend nccl: this collbench was built without CUDA/NCCL; rebuild where nvcc and NCCL are found");
#endif
}

}  // namespace

bool built_with_nccl() {
#if COLLBENCH_WITH_NCCL
  return true;
#else
  return false;
#endif
}

BackendChoice make_backend(const RunOptions& opts) {
  switch (opts.backend) {
    case BackendKind::Mpi:
      if (opts.gpus != 1) throw UsageError("-g applies to the nccl backend only; drop -g or use --backend nccl");
      return {std::make_unique<MpiBackend>(), "requested"};
    case BackendKind::Nccl:
      if (gpus_visible() == 0 && built_with_nccl())
        throw RunError("--backend nccl: no GPU is visible on this host (check CUDA_VISIBLE_DEVICES and the driver)");
      return {nccl_backend(opts), "requested"};
    case BackendKind::Auto: break;
  }
  if (!built_with_nccl()) {
    if (opts.gpus != 1) throw UsageError("-g needs the nccl backend, and this collbench was built without CUDA/NCCL");
    return {std::make_unique<MpiBackend>(), "auto: built without CUDA/NCCL"};
  }
  const int gpus = gpus_visible();
  if (gpus == 0) {
    if (opts.gpus != 1) throw RunError(fmt::format("-g {} asks for GPUs but none is visible on this host", opts.gpus));
    return {std::make_unique<MpiBackend>(), "auto: no GPU visible"};
  }
  return {nccl_backend(opts), fmt::format("auto: {} GPU(s) visible", gpus)};
}

}  // namespace collbench
