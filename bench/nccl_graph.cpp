// -G: the timed calls as CUDA graphs, as nccl-tests' -G captures them (src/common.cu, BenchTime:
// cudaStreamBeginCapture in thread-local mode on every GPU's stream, the calls, cudaStreamEndCapture,
// cudaGraphInstantiate, then cudaGraphLaunch per stream).
#include <fmt/format.h>

#include "bench/cuda_check.h"
#include "bench/dtype.h"
#include "bench/nccl_backend.h"

namespace collbench {
namespace {

cudaError_t instantiate(cudaGraphExec_t* exec, cudaGraph_t graph) {
#if CUDART_VERSION >= 11040
  return cudaGraphInstantiateWithFlags(exec, graph, 0);
#else
  return cudaGraphInstantiate(exec, graph, nullptr, nullptr, 0);
#endif
}

}  // namespace

void NcclBackend::capture_graphs(const CallShape& call) {
  // The graphs hold buffer addresses and arguments: any change of call or buffers needs new ones.
  const std::string key =
      fmt::format("{} {} {} {} {} {} {:p} {:p}", collective_info(call.coll).name, dtype_info(call.dtype).name,
                  static_cast<int>(call.redop), call.root, static_cast<int>(call.placement), call.counts.param,
                  static_cast<const void*>(locals_.front().send), static_cast<const void*>(locals_.front().recv));
  if (key == graph_key_) return;
  drop_graphs();
  // Every stream that began capturing leaves capture mode whatever happens, or the next call on it
  // fails for that alone.
  std::size_t begun = 0;
  auto end_captures = [&](bool keep) {
    cudaError_t first = cudaSuccess;
    for (std::size_t i = 0; i < begun; ++i) {
      Local& l = locals_[i];
      cudaSetDevice(l.device);
      cudaGraph_t g = nullptr;
      cudaError_t r = cudaStreamEndCapture(l.stream, &g);
      if (r == cudaSuccess && keep) r = instantiate(&l.graph, g);
      if (r != cudaSuccess) l.graph = nullptr;
      if (g != nullptr) cudaGraphDestroy(g);  // the executable graph keeps what it needs
      if (first == cudaSuccess) first = r;
    }
    return first;
  };
  try {
    for (; begun < locals_.size(); ++begun) {
      select(begun);
      // Thread-local: NCCL may allocate (cudaMalloc) while a first call connects, which a global
      // capture would refuse.
      CUDA_CHECK(cudaStreamBeginCapture(locals_[begun].stream, cudaStreamCaptureModeThreadLocal));
    }
    for (int k = 0; k < graph_calls_; ++k) launch(call, slot_for(call, static_cast<std::size_t>(k)));
  } catch (...) {
    end_captures(false);
    drop_graphs();
    throw;
  }
  if (const cudaError_t r = end_captures(true); r != cudaSuccess) {
    drop_graphs();
    cuda_check(r, "capturing the -G graphs (cudaStreamEndCapture / cudaGraphInstantiate)");
  }
  graph_key_ = key;
}

void NcclBackend::launch_graphs() {
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    select(i);
    CUDA_CHECK(cudaGraphLaunch(locals_[i].graph, locals_[i].stream));
  }
}

void NcclBackend::drop_graphs() noexcept {
  for (Local& l : locals_) {
    if (l.graph == nullptr) continue;
    cudaSetDevice(l.device);
    cudaGraphExecDestroy(l.graph);
    l.graph = nullptr;
  }
  graph_key_.clear();
}

}  // namespace collbench
