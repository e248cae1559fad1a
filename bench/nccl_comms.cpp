// NcclBackend's communicators and devices: set-up, split, error polling and teardown. The calls
// themselves are in nccl_backend.cpp.
#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <thread>

#include "bench/cuda_check.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/nccl_backend.h"
#include "bench/nccl_group.h"

namespace collbench {
namespace {

using Clock = std::chrono::steady_clock;

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return fmt::format("rank{} {}", ranks.size() > 1 ? "s" : "", out);
}

Clock::time_point after_seconds(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

NcclBackend::NcclBackend(int gpus_per_process, double init_timeout_s) : timeout_s_(init_timeout_s) {
  int size = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank_));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  world_ = size * gpus_per_process;
  first_ = mpi_rank_ * gpus_per_process;
  try {
    open_devices(gpus_per_process);
    init_comms();
  } catch (...) {
    release();  // the destructor does not run for a throwing constructor
    throw;
  }
}

NcclBackend::~NcclBackend() { release(); }

NcclBackend::NcclBackend(const NcclBackend& parent, int /*tag*/)
    : mpi_rank_(parent.mpi_rank_), timeout_s_(parent.timeout_s_) {
  locals_.resize(parent.locals_.size());
  try {
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      Local& l = locals_[i];
      l.device = parent.locals_[i].device;
      l.bus_id = parent.locals_[i].bus_id;
      l.name = parent.locals_[i].name;
      CUDA_CHECK(cudaSetDevice(l.device));
      CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
    }
  } catch (...) {
    release();
    throw;
  }
}

std::unique_ptr<Backend> NcclBackend::split(int color) {
  std::unique_ptr<NcclBackend> child(new NcclBackend(*this, 0));
  child->make_comms("communicator split", [&](std::size_t i, ncclConfig_t* config) {
    NCCL_CHECK(ncclCommSplit(locals_[i].comm, color, first_ + static_cast<int>(i), &child->locals_[i].comm, config));
  });
  try {
    NCCL_CHECK(ncclCommCount(child->locals_[0].comm, &child->world_));
    NCCL_CHECK(ncclCommUserRank(child->locals_[0].comm, &child->first_));
  } catch (...) {
    child->abort_comms();
    throw;
  }
  return child;
}

void NcclBackend::open_devices(int gpus) {
  if (gpus < 1) throw UsageError(fmt::format("-g {} is not a GPU count; use -g 1 or more", gpus));
  MPI_Comm node = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi_rank_, MPI_INFO_NULL, &node));
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  MPI_Comm_free(&node);

  int visible = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&visible); e != cudaSuccess || visible == 0)
    throw RunError(fmt::format("the nccl backend needs a GPU but rank {} (host {}) sees none ({}); use --backend mpi",
                               mpi_rank_, this_host(),
                               e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found 0"));
  int base = node_rank * gpus;
  if (base + gpus > visible) {
    if (visible == gpus) {
      base = 0;  // each process sees only its own GPUs (per-rank CUDA_VISIBLE_DEVICES)
    } else if (node_size == 1) {
      throw UsageError(fmt::format("-g {} needs {} GPUs per process but this node ({}) shows {}; use -g {} or less",
                                   gpus, gpus, this_host(), visible, visible));
    } else {
      throw UsageError(fmt::format(
          "-g {} needs {} GPUs per process but this node ({}) shows {} for its {} processes ({} needed); lower -g "
          "or start fewer processes per node",
          gpus, gpus, this_host(), visible, node_size, node_size * gpus));
    }
  }

  locals_.resize(static_cast<std::size_t>(gpus));
  for (int i = 0; i < gpus; ++i) {
    Local& l = locals_[static_cast<std::size_t>(i)];
    l.device = base + i;
    CUDA_CHECK(cudaSetDevice(l.device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, l.device));
    l.name = prop.name;
    char bus[64] = {};
    CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, l.device));
    l.bus_id = bus;
    CUDA_CHECK(cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
  }
}

void NcclBackend::init_comms() {
  ncclUniqueId id{};
  if (mpi_rank_ == 0) NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD));

  make_comms("communicator init", [&](std::size_t i, ncclConfig_t* config) {
    NCCL_CHECK(ncclCommInitRankConfig(&locals_[i].comm, world_, id, first_ + static_cast<int>(i), config));
  });
}

void NcclBackend::make_comms(const char* what, const std::function<void(std::size_t, ncclConfig_t*)>& make) {
  // Non-blocking, so a peer that never arrives gives a timeout error instead of a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  try {
    grouped([&] {
      for (std::size_t i = 0; i < locals_.size(); ++i) {
        CUDA_CHECK(cudaSetDevice(locals_[i].device));
        make(i, &config);
      }
    });
    wait_comms(what);
  } catch (...) {
    abort_comms();
    throw;
  }
}

void NcclBackend::fail_async(const char* what, int rank, ncclComm_t comm, ncclResult_t r) {
  const char* last = ncclGetLastError(comm);
  std::string msg = fmt::format("NCCL {} failed on rank {} (host {}): {}", what, rank, this_host(),
                                ncclGetErrorString(r));
  if (last != nullptr && *last != '\0') msg += fmt::format(" ({})", last);
  if (r == ncclRemoteError) msg += "; a peer rank failed or became unreachable";
  abort_comms();
  throw RunError(msg);
}

void NcclBackend::wait_comms(const char* what) {
  const auto deadline = after_seconds(timeout_s_);
  for (;;) {
    std::vector<int> pending;
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      const Local& l = locals_[i];
      if (l.comm == nullptr) continue;
      ncclResult_t state = ncclSuccess;
      if (const ncclResult_t r = ncclCommGetAsyncError(l.comm, &state); r != ncclSuccess) state = r;
      const int rank = first_ + static_cast<int>(i);
      if (state == ncclInProgress)
        pending.push_back(rank);
      else if (state != ncclSuccess)
        fail_async(what, rank, l.comm, state);
    }
    if (pending.empty()) return;
    if (Clock::now() > deadline) {
      abort_comms();
      throw RunError(fmt::format(
          "NCCL {} did not finish within {} s on {} (host {}); a peer rank may have died or be unreachable: check "
          "that every rank started and that the hosts can reach each other (NCCL_DEBUG=INFO shows where it "
          "stopped, NCCL_SOCKET_IFNAME picks the interface)",
          what, timeout_s_, join_ranks(pending), this_host()));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void NcclBackend::synchronize() {
  for (;;) {
    bool done = true;
    for (const Local& l : locals_) {
      const cudaError_t q = cudaStreamQuery(l.stream);
      if (q == cudaErrorNotReady)
        done = false;
      else
        cuda_check(q, "cudaStreamQuery");
    }
    // A dead peer shows up here rather than as a stream that never finishes.
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      ncclResult_t state = ncclSuccess;
      if (const ncclResult_t r = ncclCommGetAsyncError(locals_[i].comm, &state); r != ncclSuccess) state = r;
      if (state != ncclSuccess && state != ncclInProgress)
        fail_async("collective", first_ + static_cast<int>(i), locals_[i].comm, state);
    }
    if (done) return;
    std::this_thread::yield();
  }
}

void NcclBackend::abort_comms() noexcept {
  for (Local& l : locals_) {
    if (l.comm != nullptr) ncclCommAbort(l.comm);
    l.comm = nullptr;
  }
}

void NcclBackend::release() noexcept {
  // Finalize all communicators together (non-blocking, so several local ones cannot wait on each
  // other), then destroy those that finished; abort any that failed or did not finish in time.
  std::vector<bool> ok(locals_.size(), false);
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    if (locals_[i].comm == nullptr) continue;
    const ncclResult_t r = ncclCommFinalize(locals_[i].comm);
    ok[i] = r == ncclSuccess || r == ncclInProgress;
  }
  const auto deadline = after_seconds(timeout_s_);
  for (;;) {
    bool pending = false;
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      if (locals_[i].comm == nullptr || !ok[i]) continue;
      ncclResult_t state = ncclSuccess;
      if (ncclCommGetAsyncError(locals_[i].comm, &state) != ncclSuccess) state = ncclInternalError;
      if (state == ncclInProgress)
        pending = true;
      else if (state != ncclSuccess)
        ok[i] = false;
    }
    if (!pending || Clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    Local& l = locals_[i];
    if (l.comm == nullptr) continue;
    ncclResult_t state = ncclInternalError;
    if (ok[i]) ncclCommGetAsyncError(l.comm, &state);
    if (state == ncclSuccess)
      ncclCommDestroy(l.comm);
    else
      ncclCommAbort(l.comm);
    l.comm = nullptr;
  }

  free_buffers();
  for (Local& l : locals_) {
    if (l.device < 0) continue;
    cudaSetDevice(l.device);
    for (cudaEvent_t e : l.events) cudaEventDestroy(e);
    l.events.clear();
    if (l.stream != nullptr) cudaStreamDestroy(l.stream);
    l.stream = nullptr;
  }
}

void NcclBackend::free_buffers() noexcept {
  for (Local& l : locals_) {
    if (l.device < 0) continue;
    cudaSetDevice(l.device);
    if (l.send != nullptr) cudaFree(l.send);
    if (l.recv != nullptr) cudaFree(l.recv);
    l.send = l.recv = nullptr;
  }
  send_capacity_ = recv_capacity_ = 0;
}

}  // namespace collbench
