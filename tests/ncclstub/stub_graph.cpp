// Host stand-in for the CUDA graph calls of collbench's -G: a capturing stream collects the NCCL
// stand-in's groups (stub_nccl.cpp hands them over at group end instead of running them), and a
// launch runs them in capture order. A group spanning several GPUs (-g N) runs when the last of its
// graphs is launched, as NCCL's kernels of one group wait for each other.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>

#include "tests/ncclstub/stub_state.h"

namespace {

struct Exec {
  int device;
  std::vector<std::shared_ptr<ncclstub::CapturedGroup>> groups;
};

ncclstub::Stream* as_stream(cudaStream_t s) { return reinterpret_cast<ncclstub::Stream*>(s); }

}  // namespace

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t s, cudaStreamCaptureMode) {
  if (s == nullptr) return cudaErrorStreamCaptureUnsupported;  // the legacy stream cannot capture
  if (as_stream(s)->capture != nullptr) return cudaErrorIllegalState;
  as_stream(s)->capture = new ncclstub::Graph{as_stream(s)->device, {}};
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t* graph) {
  if (s == nullptr || as_stream(s)->capture == nullptr) return cudaErrorIllegalState;
  *graph = reinterpret_cast<cudaGraph_t>(as_stream(s)->capture);
  as_stream(s)->capture = nullptr;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  const auto* g = reinterpret_cast<ncclstub::Graph*>(graph);
  if (g == nullptr) return cudaErrorInvalidValue;
  *exec = reinterpret_cast<cudaGraphExec_t>(new Exec{g->device, g->groups});
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete reinterpret_cast<ncclstub::Graph*>(graph);
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete reinterpret_cast<Exec*>(exec);
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t s) {
  const auto* e = reinterpret_cast<Exec*>(exec);
  if (e == nullptr) return cudaErrorInvalidValue;
  if (s != nullptr && as_stream(s)->capture != nullptr) return cudaErrorStreamCaptureUnsupported;
  ncclstub::log_line("graph dev=%d calls=%zu", e->device, e->groups.size());
  for (const auto& g : e->groups) {
    if (++g->arrived < g->graphs) continue;
    g->arrived = 0;
    if (const int r = g->run(); r != ncclSuccess) {
      std::fprintf(stderr, "NCCL stub: a captured group failed at graph launch: %s\n", ncclGetLastError(nullptr));
      return cudaErrorLaunchFailure;
    }
  }
  return cudaSuccess;
}

}  // extern "C"
