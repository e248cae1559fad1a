// NCCL collectives on GPUs: one process drives -g GPUs, one communicator rank each (nccl-tests'
// layout), timed with CUDA events and checked by the device kernels of kernels/fill_verify.h.
// The communicators' life (init, split, waits, errors, teardown) is in bench/nccl_lifecycle.h.
#pragma once

#include <cuda_runtime_api.h>
#include <mpi.h>

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bench/agreement.h"
#include "bench/backend.h"
#include "bench/control.h"
#include "bench/gpu_probe.h"
#include "bench/nccl_lifecycle.h"
#include "bench/watchdog.h"

namespace collbench {

namespace nccl {
Api& real_api();  // libnccl behind the lifecycle's seam (nccl_api_real.cpp)
}

// How to set the backend up. Each step that precedes a collective is agreed over `control`.
struct NcclSetup {
  int gpus_per_process = 1;
  double timeout_s = 300.0;
  bool inject_failure = false;     // test hook (--inject setup:RANK): this process fails set-up
  FailureReport report;            // a failing process's own error, reported at once
  Watchdog* watchdog = nullptr;    // armed for each step, so a hang is bounded and names the step
  int graph_calls = 0;             // -G: calls captured in one CUDA graph per timed launch; 0: none
};

class NcclBackend final : public Backend {
 public:
  // Collective over MPI_COMM_WORLD (MPI must be initialized). Throws StepFailed on every process when
  // any process failed a step (UsageError-class failures give kExitUsage: too few GPUs for -g).
  NcclBackend(const NcclSetup& setup, Control& control);
  ~NcclBackend() override;
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string name() const override { return "nccl"; }
  int world_ranks() const override { return comms_->nranks(); }
  int local_ranks() const override { return static_cast<int>(locals_.size()); }
  int first_rank() const override { return comms_->first_rank(); }
  std::vector<DeviceDesc> devices() const override;
  std::map<std::string, std::string> versions() const override;

  std::optional<std::string> unsupported(const CallShape& call) const override;
  bool verifiable(const CallShape& call) const override;
  void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) override;
  void fill(const CallShape& call, std::uint64_t seed) override;
  // With -G N, each of `iters` is one launch of every GPU's graph of N calls, timed as one sample of
  // its time / N; warm-up batches launch the graphs too.
  void run(const CallShape& call, int iters, LocalSamples* samples, std::vector<double>* starts) override;
  void run_once(const CallShape& call) override;
  int calls_per_sample(const CallShape& call) const override {
    return graph_calls_ > 0 && call.counts.param > 0 ? graph_calls_ : 1;
  }  // never a graph: the check's inputs are used once
  std::int64_t count_wrong(const CallShape& call, std::uint64_t seed) override;
  void corrupt_result(const CallShape& call) override;
  std::vector<std::string> method_notes() const override;
  // Times come from CUDA events, with no host clock to line up.
  bool records_arrivals() const override { return false; }
  // ncclCommSplit of every local communicator; ranks keep their order.
  std::unique_ptr<Backend> split(int color) override;

 private:
  // The child of split(): same GPUs, new streams, the split communicators.
  NcclBackend(const NcclBackend& parent, std::unique_ptr<nccl::CommSet> comms);
  struct Local {
    int device = -1;
    std::string bus_id;
    std::string name;
    cudaStream_t stream = nullptr;
    std::byte* send = nullptr;
    std::byte* recv = nullptr;  // also the single in-place buffer
    std::vector<cudaEvent_t> events;  // timing pool, grown on demand (the first GPU's only)
    cudaGraphExec_t graph = nullptr;  // -G: this GPU's captured calls (bench/nccl_graph.cpp)
  };

  void open_devices(int gpus_per_process, int node_rank, int node_size);
  // Every process of this node: the bus ids of its GPUs, and its MPI rank (collective over `node`).
  std::vector<std::vector<std::string>> node_bus_ids(MPI_Comm node, int node_size) const;
  static std::vector<int> node_mpi_ranks(MPI_Comm node, int node_size, int mpi_rank);
  void select(std::size_t local) const;
  bool streams_done() const;
  void release() noexcept;
  void free_buffers() noexcept;
  void grow_events(std::size_t count);
  void record_event(std::size_t k);  // events[k] on the first GPU's stream
  // One group of this call on every local rank, on buffer slot `slot`.
  void launch(const CallShape& call, std::uint64_t slot);
  void enqueue(const CallShape& call, const Local& l, void* comm, int rank, std::uint64_t slot) const;
  // Iteration k runs on slot k mod (buffer capacity / slot span), both buffers shifted by the same
  // slot * span: nccl-tests' startColl (common.cu), so small calls move through the whole buffer
  // instead of running from L2. Slot 0 holds the filled inputs and the checked result.
  std::uint64_t slot_for(const CallShape& call, std::size_t k) const;
  // -G (bench/nccl_graph.cpp): every stream captures graph_calls_ calls of `call`, slots as run()'s,
  // into one graph per GPU; kept while the same call on the same buffers comes back.
  void capture_graphs(const CallShape& call);
  void launch_graphs();
  void drop_graphs() noexcept;
  std::uint64_t slot_span(const CallShape& call) const;  // bytes of one slot, in both buffers
  std::byte* send_ptr(const CallShape& call, const Local& l, int rank, std::uint64_t slot) const;
  std::byte* result_ptr(const CallShape& call, const Local& l, int rank, std::uint64_t slot) const;

  double timeout_s_ = 300.0;
  int graph_calls_ = 0;
  std::string graph_key_;  // the call and buffers the captured graphs hold; empty: none
  std::vector<Local> locals_;
  std::unique_ptr<nccl::CommSet> comms_;
  std::uint64_t send_capacity_ = 0;
  std::uint64_t recv_capacity_ = 0;
};

// This process's GPUs: cudaGetDeviceCount, its error named. Never throws.
GpuProbe probe_gpus(const std::string& dev_dir = device_dir());
inline int visible_gpu_count() { return probe_gpus().count; }

}  // namespace collbench
