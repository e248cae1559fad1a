// NCCL collectives on GPUs: one process drives -g GPUs, one communicator rank each (nccl-tests'
// layout), timed with CUDA events and checked by the device kernels of kernels/fill_verify.h.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/backend.h"

namespace collbench {

class NcclBackend final : public Backend {
 public:
  // Collective over MPI_COMM_WORLD (MPI must be initialized). Throws UsageError when this node has
  // too few GPUs for -g, RunError when NCCL cannot set up within init_timeout_s.
  NcclBackend(int gpus_per_process, double init_timeout_s);
  ~NcclBackend() override;
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  std::string name() const override { return "nccl"; }
  int world_ranks() const override { return world_; }
  int local_ranks() const override { return static_cast<int>(locals_.size()); }
  int first_rank() const override { return first_; }
  std::vector<DeviceDesc> devices() const override;
  std::map<std::string, std::string> versions() const override;

  std::optional<std::string> unsupported(const CallShape& call) const override;
  bool verifiable(const CallShape& call) const override;
  void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) override;
  void fill(const CallShape& call, std::uint64_t seed) override;
  void run(const CallShape& call, int iters, LocalSamples* samples) override;
  std::int64_t count_wrong(const CallShape& call, std::uint64_t seed) override;
  void corrupt_result(const CallShape& call) override;
  // ncclCommSplit of every local communicator; ranks keep their order.
  std::unique_ptr<Backend> split(int color) override;

 private:
  // The child of split(): same GPUs, new streams, communicators not yet made.
  NcclBackend(const NcclBackend& parent, int /*tag*/);
  struct Local {
    int device = -1;
    std::string bus_id;
    std::string name;
    cudaStream_t stream = nullptr;
    ncclComm_t comm = nullptr;
    std::byte* send = nullptr;
    std::byte* recv = nullptr;  // also the single in-place buffer
    std::vector<cudaEvent_t> events;  // timing pool, grown on demand
  };

  void open_devices(int gpus_per_process);
  void init_comms();
  // Makes every local communicator with `make(i, config)` in one NCCL group and waits for them
  // (`what` names the step); aborts them all on any failure.
  void make_comms(const char* what, const std::function<void(std::size_t, ncclConfig_t*)>& make);
  // Polls every local communicator until none is ncclInProgress; `what` names the operation.
  // On an error or after the timeout, aborts the communicators and throws RunError.
  void wait_comms(const char* what);
  // Waits for every local stream, failing early if NCCL reports an asynchronous error.
  void synchronize();
  void abort_comms() noexcept;
  void release() noexcept;
  void free_buffers() noexcept;
  void grow_events(std::size_t per_rank);
  void call_once(const CallShape& call);
  void enqueue(const CallShape& call, Local& l, int rank);
  std::byte* send_ptr(const CallShape& call, const Local& l, int rank) const;
  std::byte* result_ptr(const CallShape& call, const Local& l, int rank) const;
  [[noreturn]] void fail_async(const char* what, int rank, ncclComm_t comm, ncclResult_t r);

  int mpi_rank_ = 0;
  int world_ = 1;
  int first_ = 0;
  double timeout_s_ = 300.0;
  std::vector<Local> locals_;
  std::uint64_t send_capacity_ = 0;
  std::uint64_t recv_capacity_ = 0;
};

// The nccl backend, driving `gpus_per_process` GPUs in each process.
std::unique_ptr<Backend> make_nccl_backend(int gpus_per_process, double init_timeout_s);

// GPUs this process can see (cudaGetDeviceCount); 0 on any error. Never throws.
int visible_gpu_count();

}  // namespace collbench
