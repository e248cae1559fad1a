// The seam between collbench and NCCL's communicator calls. No NCCL header here: the lifecycle
// (bench/nccl_lifecycle.h) is built and unit-tested without CUDA, driven by a test double that
// behaves like NCCL 2.23+ (in-progress results, split children that appear late, calls that never
// finish, asynchronous errors); bench/nccl_api_real.cpp forwards to libnccl.
#pragma once

#include <array>
#include <string>

namespace collbench::nccl {

// The ncclResult_t values the lifecycle tells apart; nccl_api_real.cpp checks them against nccl.h.
inline constexpr int kSuccess = 0;
inline constexpr int kRemoteError = 6;
inline constexpr int kInProgress = 7;

using Comm = void*;  // an ncclComm_t
struct UniqueId {
  std::array<char, 128> bytes{};  // an ncclUniqueId
};

// One virtual per NCCL entry point of a communicator's life. Results are ncclResult_t values.
class Api {
 public:
  virtual ~Api() = default;
  virtual int group_start() = 0;
  virtual int group_end() = 0;
  // ncclCommInitRankConfig with config.blocking = blocking.
  virtual int init_rank(Comm* comm, int nranks, const UniqueId& id, int rank, bool blocking) = 0;
  // ncclCommSplit with config.blocking = blocking. A non-blocking parent leaves *child null until
  // the split's background job ends, and reports the job's progress on the parent.
  virtual int split(Comm parent, int color, int key, Comm* child, bool blocking) = 0;
  virtual int async_error(Comm comm, int* state) = 0;  // ncclCommGetAsyncError
  virtual int count(Comm comm, int* n) = 0;             // ncclCommCount
  virtual int user_rank(Comm comm, int* rank) = 0;      // ncclCommUserRank
  virtual int finalize(Comm comm) = 0;
  virtual int destroy(Comm comm) = 0;
  virtual int abort(Comm comm) = 0;
  // ncclGetErrorString(result), with ncclGetLastError(comm) when it says more.
  virtual std::string describe(int result, Comm comm) = 0;
};

}  // namespace collbench::nccl
