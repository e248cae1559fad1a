#include "bench/backend_factory.h"

#include <fmt/format.h>

#include "bench/errors.h"
#include "bench/gpu_probe.h"
#include "bench/mpi_backend.h"
#if COLLBENCH_WITH_NCCL
#include "bench/nccl_backend.h"
#endif

namespace collbench {
namespace {

GpuProbe probe() {
#if COLLBENCH_WITH_NCCL
  return probe_gpus();
#else
  return {};
#endif
}

std::unique_ptr<Backend> nccl_backend([[maybe_unused]] const RunOptions& opts, [[maybe_unused]] Control& control,
                                      [[maybe_unused]] const FailureReport& report,
                                      [[maybe_unused]] Watchdog* watchdog, [[maybe_unused]] bool inject) {
#if COLLBENCH_WITH_NCCL
  return std::make_unique<NcclBackend>(NcclSetup{opts.gpus, opts.timeout_s, inject, report, watchdog, opts.graph_calls},
                                       control);
#else
  throw RunError("--backend nccl: this collbench was built without CUDA/NCCL; rebuild where nvcc and NCCL are found");
#endif
}

std::unique_ptr<Backend> mpi_backend(const RunOptions& opts, Control& control, const FailureReport& report,
                                     bool inject, const char* why_no_g) {
  agreed_step(control, report, [&] {
    if (opts.gpus != 1) throw UsageError(why_no_g);
    if (opts.graph_calls > 0)
      throw UsageError(fmt::format("-G {} captures NCCL calls in CUDA graphs: it needs the nccl backend, and this run "
                                   "uses mpi; drop -G or run where --backend nccl works",
                                   opts.graph_calls));
    if (inject) throw RunError("injected set-up failure (--inject setup)");
  });
  return std::make_unique<MpiBackend>();  // collective (MPI_Comm_dup): only once every process agreed
}

}  // namespace

bool built_with_nccl() {
#if COLLBENCH_WITH_NCCL
  return true;
#else
  return false;
#endif
}

BackendChoice make_backend(const RunOptions& opts, Control& control, const FailureReport& report,
                           Watchdog* watchdog) {
  const bool inject = opts.inject.kind == FaultInjection::Kind::Setup && opts.inject.rank == control.rank();
  if (watchdog != nullptr) watchdog->arm("backend set-up: looking for GPUs", opts.timeout_s);
  switch (opts.backend) {
    case BackendKind::Mpi:
      return {mpi_backend(opts, control, report, inject, "-g applies to the nccl backend only; drop -g or use --backend nccl"),
              "requested"};
    case BackendKind::Nccl:
      // A process without a GPU fails the backend's first agreed step, naming its CUDA error.
      return {nccl_backend(opts, control, report, watchdog, inject), "requested"};
    case BackendKind::Auto: break;
  }
  if (!built_with_nccl())
    return {mpi_backend(opts, control, report, inject, "-g needs the nccl backend, and this collbench was built without CUDA/NCCL"),
            "auto: built without CUDA/NCCL"};
  const GpuProbe mine = probe();
  const bool has = mine.count > 0;
  const bool all = control.min(has ? 1 : 0) == 1;
  const bool any = -control.min(has ? -1 : 0) == 1;
  const AutoChoice choice = decide_auto(mine, all, any);
  agreed_step(control, report, [&] {
    if (choice.error) throw RunError(*choice.error);
  });
  if (choice.nccl) return {nccl_backend(opts, control, report, watchdog, inject), choice.reason};
  return {mpi_backend(opts, control, report, inject,
                      "-g asks for GPUs but no process has a usable GPU; drop -g or fix the GPUs"),
          choice.reason};
}

}  // namespace collbench
