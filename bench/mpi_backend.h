// Host buffers and MPI collectives: runs anywhere, measures the host network path.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "bench/backend.h"

namespace collbench {

class MpiBackend final : public Backend {
 public:
  MpiBackend();
  ~MpiBackend() override;
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  std::string name() const override { return "mpi"; }
  int world_ranks() const override { return size_; }
  int local_ranks() const override { return 1; }
  int first_rank() const override { return rank_; }
  std::vector<DeviceDesc> devices() const override;
  std::map<std::string, std::string> versions() const override;

  std::optional<std::string> unsupported(const CallShape& call) const override;
  bool verifiable(const CallShape&) const override { return true; }
  void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) override;
  void fill(const CallShape& call, std::uint64_t seed) override;
  void run(const CallShape& call, int iters, LocalSamples* samples, std::vector<double>* starts) override;
  std::int64_t count_wrong(const CallShape& call, std::uint64_t seed) override;
  void corrupt_result(const CallShape& call) override;
  std::unique_ptr<Backend> split(int color) override;

 private:
  explicit MpiBackend(MPI_Comm comm);  // takes ownership

  struct FreeDeleter {
    void operator()(void* p) const;
  };
  using Buffer = std::unique_ptr<std::byte, FreeDeleter>;

  void call_once(const CallShape& call);
  // Where the result of this call lands, and how many elements it has.
  const std::byte* result(const CallShape& call) const;

  int rank_ = 0;  // set by dup_world() when comm_ is initialised, so declared first
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Buffer send_;
  Buffer recv_;  // also the single in-place buffer
  std::uint64_t send_capacity_ = 0;
  std::uint64_t recv_capacity_ = 0;
};

}  // namespace collbench
