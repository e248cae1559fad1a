// CUDA and NCCL error checks: name the call, the error, the MPI rank and the host, then throw
// RunError. Host code only (g++), like bench/mpi_check.h.
#pragma once

#include "bench/call_site.h"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <mpi.h>
#include <nccl.h>

#include <string>

#include "bench/errors.h"
#include "bench/mpi_check.h"

namespace collbench {

// MPI_COMM_WORLD rank, or -1 outside MPI_Init/MPI_Finalize.
inline int world_rank_or_none() {
  int up = 0, down = 0, rank = -1;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

[[noreturn]] inline void cuda_fail(const char* call, cudaError_t e,
                                   const std::source_location& at = std::source_location::current()) {
  throw RunError(fmt::format("{} failed on rank {} (host {}): {}{}", call, world_rank_or_none(), this_host(),
                             cudaGetErrorString(e), call_site(at)));
}

[[noreturn]] inline void nccl_fail(const char* call, ncclResult_t r,
                                   const std::source_location& at = std::source_location::current()) {
  const char* detail = ncclGetLastError(nullptr);
  throw RunError(fmt::format("{} failed on rank {} (host {}): {}{}{}{}", call, world_rank_or_none(), this_host(),
                             ncclGetErrorString(r), detail != nullptr && *detail != '\0' ? ": " : "",
                             detail != nullptr ? detail : "", call_site(at)));
}

// Kernel launches are checked with cudaGetLastError() at their call site, like any CUDA call.
inline void cuda_check(cudaError_t e, const char* call, const std::source_location& at = std::source_location::current()) {
  if (e != cudaSuccess) cuda_fail(call, e, at);
}

// ncclInProgress is not a failure: non-blocking communicators return it, and the caller polls
// ncclCommGetAsyncError until the operation is done.
inline ncclResult_t nccl_check(ncclResult_t r, const char* call,
                               const std::source_location& at = std::source_location::current()) {
  if (r != ncclSuccess && r != ncclInProgress) nccl_fail(call, r, at);
  return r;
}

}  // namespace collbench

#define CUDA_CHECK(call) ::collbench::cuda_check((call), #call)
#define NCCL_CHECK(call) ::collbench::nccl_check((call), #call)
