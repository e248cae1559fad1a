#include "bench/backend_factory.h"

#include <fmt/format.h>

#include "bench/errors.h"
#include "bench/gpu_probe.h"
#include "bench/mpi_backend.h"
#include "bench/nccl_presence.h"

namespace collbench {
namespace {

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
      return {make_nccl_backend(opts, control, report, watchdog, inject), "requested"};
    case BackendKind::Auto: break;
  }
  if (!built_with_nccl())
    return {mpi_backend(opts, control, report, inject, "-g needs the nccl backend, and this collbench was built without CUDA/NCCL"),
            "auto: built without CUDA/NCCL"};
  const GpuProbe mine = probe_cuda_gpus(device_dir()).value_or(GpuProbe{});
  const bool has = mine.count > 0;
  const bool all = control.min(has ? 1 : 0) == 1;
  const bool any = -control.min(has ? -1 : 0) == 1;
  const AutoChoice choice = decide_auto(mine, all, any);
  agreed_step(control, report, [&] {
    if (choice.error) throw RunError(*choice.error);
  });
  if (choice.nccl) return {make_nccl_backend(opts, control, report, watchdog, inject), choice.reason};
  return {mpi_backend(opts, control, report, inject,
                      "-g asks for GPUs but no process has a usable GPU; drop -g or fix the GPUs"),
          choice.reason};
}

}  // namespace collbench
