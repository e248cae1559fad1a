#include "bench/nccl_backend.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>

#include "bench/cuda_check.h"
#include "bench/nccl_group.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/sizes.h"
#include "kernels/fill_verify.h"

namespace collbench {
namespace {

ncclDataType_t nccl_type(DType t) {
  switch (t) {
    case DType::Int8: return ncclInt8;
    case DType::Uint8: return ncclUint8;
    case DType::Int32: return ncclInt32;
    case DType::Uint32: return ncclUint32;
    case DType::Int64: return ncclInt64;
    case DType::Uint64: return ncclUint64;
    case DType::Half: return ncclFloat16;
    case DType::Float: return ncclFloat32;
    case DType::Double: return ncclFloat64;
    case DType::BFloat16:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 10, 0)
      return ncclBfloat16;
#else
      break;  // refused by unsupported()
#endif
  }
  return ncclFloat32;
}

ncclRedOp_t nccl_op(RedOp op) {
  switch (op) {
    case RedOp::Sum: return ncclSum;
    case RedOp::Prod: return ncclProd;
    case RedOp::Max: return ncclMax;
    case RedOp::Min: return ncclMin;
  }
  return ncclSum;
}


// NCCL's version code: 2.28.9 is 22809, before 2.9 it was 1000 * major + 100 * minor + patch.
std::string nccl_version_text(int code) {
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

std::string cuda_version_text(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }


}  // namespace

int visible_gpu_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // do not leave the error for the next CUDA call to report
    return 0;
  }
  return n;
}

std::unique_ptr<Backend> make_nccl_backend(int gpus_per_process, double init_timeout_s) {
  return std::make_unique<NcclBackend>(gpus_per_process, init_timeout_s);
}


std::vector<DeviceDesc> NcclBackend::devices() const {
  std::vector<DeviceDesc> out;
  for (const Local& l : locals_) out.push_back(DeviceDesc{l.device, l.bus_id, l.name});
  return out;
}

std::map<std::string, std::string> NcclBackend::versions() const {
  std::map<std::string, std::string> v;
  int code = 0;
  if (ncclGetVersion(&code) == ncclSuccess) v["nccl"] = nccl_version_text(code);
  int driver = 0, runtime = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) v["cuda_driver"] = cuda_version_text(driver);
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) v["cuda_runtime"] = cuda_version_text(runtime);
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string mpi(text, static_cast<std::size_t>(len));
  if (auto nl = mpi.find_first_of(",\n"); nl != std::string::npos) mpi.resize(nl);
  v["mpi"] = mpi;
  return v;
}

std::optional<std::string> NcclBackend::unsupported(const CallShape& call) const {
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
  if (call.dtype == DType::BFloat16)
    return fmt::format("collbench was built with NCCL {}, which has no bfloat16 (NCCL 2.10 or later has it)",
                       nccl_version_text(NCCL_VERSION_CODE));
#endif
  if (collective_info(call.coll).rooted && (call.root < 0 || call.root >= world_))
    return fmt::format("root {} is not a rank of this run ({} ranks)", call.root, world_);
  return std::nullopt;
}

bool NcclBackend::verifiable(const CallShape& call) const {
  // In place, all_to_all and sendrecv overwrite data still to be sent: nccl-tests reports N/A.
  return !(call.placement == Placement::InPlace && (call.coll == Coll::AllToAll || call.coll == Coll::SendRecv));
}

void NcclBackend::reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) {
  recv_bytes = std::max(recv_bytes, send_bytes);  // the in-place buffer holds either
  if (send_bytes <= send_capacity_ && recv_bytes <= recv_capacity_) return;
  // Never shrink: a later, smaller case reuses the buffers.
  send_bytes = std::max(send_bytes, send_capacity_);
  recv_bytes = std::max(recv_bytes, recv_capacity_);
  const std::uint64_t need = send_bytes + recv_bytes;
  for (const Local& l : locals_) {
    CUDA_CHECK(cudaSetDevice(l.device));
    std::size_t free = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free, &total));
    const std::uint64_t avail = free + send_capacity_ + recv_capacity_;  // ours are freed first
    if (need > avail)
      throw UsageError(fmt::format(
          "-e too large: GPU {} ({}, {}) on host {} needs {} for its buffers but has {} free; lower -e",
          l.device, l.bus_id, l.name, this_host(), format_bytes(need), format_bytes(avail)));
  }
  free_buffers();
  for (Local& l : locals_) {
    CUDA_CHECK(cudaSetDevice(l.device));
    // At least one word, so an empty case still passes valid pointers to NCCL.
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&l.send), std::max<std::uint64_t>(send_bytes, 256)));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&l.recv), std::max<std::uint64_t>(recv_bytes, 256)));
  }
  send_capacity_ = send_bytes;
  recv_capacity_ = recv_bytes;
}

std::byte* NcclBackend::send_ptr(const CallShape& call, const Local& l, int rank) const {
  if (call.placement == Placement::OutOfPlace) return l.send;
  return l.recv + static_cast<std::uint64_t>(rank) * call.counts.send_inplace_offset * dtype_info(call.dtype).size;
}

// Where the result lands, at every rank (broadcast's root included: NCCL writes its recv buffer).
std::byte* NcclBackend::result_ptr(const CallShape& call, const Local& l, int rank) const {
  if (call.placement == Placement::OutOfPlace) return l.recv;
  return l.recv + static_cast<std::uint64_t>(rank) * call.counts.recv_inplace_offset * dtype_info(call.dtype).size;
}

void NcclBackend::fill(const CallShape& call, std::uint64_t seed) {
  const std::size_t elt = dtype_info(call.dtype).size;
  const auto& c = call.counts;
  const bool inplace = call.placement == Placement::InPlace;
  if ((inplace ? 0 : c.send * elt) > send_capacity_ || (inplace ? c.inplace_elements() : c.recv) * elt > recv_capacity_)
    throw RunError(fmt::format("nccl backend: fill of {} elements before reserve() made room for them",
                               std::max(c.send, c.recv)));
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    Local& l = locals_[i];
    const int rank = first_ + static_cast<int>(i);
    const auto spec = pattern_spec(*this, call, seed, static_cast<int>(i));
    CUDA_CHECK(cudaSetDevice(l.device));
    if (inplace) {
      device::fill_value(call.dtype, l.recv, c.inplace_elements(), pattern::kPoison, l.stream);
    } else {
      device::fill_value(call.dtype, l.recv, c.recv, pattern::kPoison, l.stream);
    }
    device::fill_input(call.dtype, send_ptr(call, l, rank), c.send, spec, l.stream);
  }
  // Every GPU's inputs are in place before any rank's first collective.
  for (const Local& l : locals_) CUDA_CHECK(cudaStreamSynchronize(l.stream));
}

void NcclBackend::enqueue(const CallShape& call, Local& l, int rank) {
  const ncclDataType_t type = nccl_type(call.dtype);
  const std::size_t p = call.counts.param;
  const void* send = send_ptr(call, l, rank);
  void* recv = result_ptr(call, l, rank);
  switch (call.coll) {
    case Coll::AllReduce:
      NCCL_CHECK(ncclAllReduce(send, recv, p, type, nccl_op(call.redop), l.comm, l.stream));
      break;
    case Coll::AllGather:
      NCCL_CHECK(ncclAllGather(send, recv, p, type, l.comm, l.stream));
      break;
    case Coll::ReduceScatter:
      NCCL_CHECK(ncclReduceScatter(send, recv, p, type, nccl_op(call.redop), l.comm, l.stream));
      break;
    case Coll::AllToAll:
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
      NCCL_CHECK(ncclAlltoAll(send, recv, p, type, l.comm, l.stream));
#else
      for (int peer = 0; peer < world_; ++peer) {
        const std::size_t off = static_cast<std::size_t>(peer) * p * dtype_info(call.dtype).size;
        NCCL_CHECK(ncclSend(static_cast<const std::byte*>(send) + off, p, type, peer, l.comm, l.stream));
        NCCL_CHECK(ncclRecv(static_cast<std::byte*>(recv) + off, p, type, peer, l.comm, l.stream));
      }
#endif
      break;
    case Coll::Broadcast:
      NCCL_CHECK(ncclBroadcast(send, recv, p, type, call.root, l.comm, l.stream));
      break;
    case Coll::SendRecv:
      NCCL_CHECK(ncclSend(send, p, type, (rank + 1) % world_, l.comm, l.stream));
      NCCL_CHECK(ncclRecv(recv, p, type, (rank - 1 + world_) % world_, l.comm, l.stream));
      break;
  }
}

void NcclBackend::call_once(const CallShape& call) {
  if (call.counts.param == 0) return;  // nothing moves (and nothing is checked: recv is 0 too)
  const ncclResult_t r = grouped([&] {
    for (std::size_t i = 0; i < locals_.size(); ++i) {
      CUDA_CHECK(cudaSetDevice(locals_[i].device));
      enqueue(call, locals_[i], first_ + static_cast<int>(i));
    }
  });
  // Non-blocking communicators may still be connecting; no CUDA work on their streams until done.
  if (r == ncclInProgress) wait_comms("collective launch");
}

void NcclBackend::grow_events(std::size_t per_rank) {
  for (Local& l : locals_) {
    if (l.events.size() >= per_rank) continue;
    CUDA_CHECK(cudaSetDevice(l.device));
    while (l.events.size() < per_rank) {
      cudaEvent_t e = nullptr;
      CUDA_CHECK(cudaEventCreate(&e));
      l.events.push_back(e);
    }
  }
}

void NcclBackend::run(const CallShape& call, int iters, LocalSamples* samples) {
  if (iters <= 0) return;
  const auto n = static_cast<std::size_t>(iters);
  // Event k ends iteration k-1 and starts iteration k: n + 1 events time n iterations.
  if (samples != nullptr) {
    grow_events(n + 1);
    samples->resize(locals_.size());
    for (Local& l : locals_) {
      CUDA_CHECK(cudaSetDevice(l.device));
      CUDA_CHECK(cudaEventRecord(l.events[0], l.stream));
    }
  }
  for (std::size_t k = 1; k <= n; ++k) {
    call_once(call);
    if (samples == nullptr) continue;
    for (Local& l : locals_) {
      CUDA_CHECK(cudaSetDevice(l.device));
      CUDA_CHECK(cudaEventRecord(l.events[k], l.stream));
    }
  }
  synchronize();
  if (samples == nullptr) return;
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    auto& out = (*samples)[i];
    out.reserve(out.size() + n);
    for (std::size_t k = 1; k <= n; ++k) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, locals_[i].events[k - 1], locals_[i].events[k]));
      out.push_back(static_cast<double>(ms) / 1000.0);
    }
  }
}

std::int64_t NcclBackend::count_wrong(const CallShape& call, std::uint64_t seed) {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    const Local& l = locals_[i];
    CUDA_CHECK(cudaSetDevice(l.device));
    wrong += device::count_wrong(call.dtype, result_ptr(call, l, first_ + static_cast<int>(i)), call.counts.recv,
                                 pattern_spec(*this, call, seed, static_cast<int>(i)), l.stream);
  }
  return wrong;
}

void NcclBackend::corrupt_result(const CallShape& call) {
  if (call.counts.recv == 0 || locals_.empty()) return;
  const Local& l = locals_[0];
  CUDA_CHECK(cudaSetDevice(l.device));
  device::fill_value(call.dtype, result_ptr(call, l, first_), 1, pattern::kPoison, l.stream);
  CUDA_CHECK(cudaStreamSynchronize(l.stream));
}

}  // namespace collbench
