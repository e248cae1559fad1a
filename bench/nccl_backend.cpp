#include "bench/nccl_backend.h"
#include "bench/nccl_presence.h"
#include "bench/versions.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>

#include "bench/cuda_check.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/nccl_memory.h"
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


}  // namespace

std::vector<DeviceDesc> NcclBackend::devices() const {
  std::vector<DeviceDesc> out;
  for (const Local& l : locals_) out.push_back(DeviceDesc{l.device, l.bus_id, l.name});
  return out;
}

std::map<std::string, std::string> NcclBackend::versions() const { return library_versions(); }

std::vector<std::string> NcclBackend::method_notes() const {
  std::vector<std::string> notes{
      "all_to_all: one ncclSend and one ncclRecv per peer in one group, in both placements (as nccl-tests)"};
  if (locals_.size() > 1)
    notes.push_back(fmt::format("-g {}: each iteration timed by CUDA events on the process's first GPU; its "
                                "other GPUs' ranks share those times",
                                locals_.size()));
  if (graph_calls_ > 0)
    notes.push_back(fmt::format("-G {0}: each GPU's stream captures {0} calls in one CUDA graph; a sample is one launch "
                                "of the graphs, its time / {0}; the result check runs one call outside the graphs",
                                graph_calls_));
  return notes;
}

std::optional<std::string> NcclBackend::unsupported(const CallShape& call) const {
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 10, 0)
  if (call.dtype == DType::BFloat16)
    return fmt::format("collbench was built with NCCL {}, which has no bfloat16 (NCCL 2.10 or later has it)",
                       nccl_version_text(NCCL_VERSION_CODE));
#endif
  if (collective_info(call.coll).rooted && (call.root < 0 || call.root >= world_ranks()))
    return fmt::format("root {} is not a rank of this run ({} ranks)", call.root, world_ranks());
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
    if (auto why = nccl_buffers_do_not_fit(need, avail, total))
      throw UsageError(fmt::format("-e too large: GPU {} ({}, {}) on host {}: {}", l.device, l.bus_id, l.name,
                                   this_host(), *why));
  }
  free_buffers();
  // At least one word, so an empty case still passes valid pointers to NCCL.
  send_bytes = std::max<std::uint64_t>(send_bytes, 256);
  recv_bytes = std::max<std::uint64_t>(recv_bytes, 256);
  for (Local& l : locals_) {
    CUDA_CHECK(cudaSetDevice(l.device));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&l.send), send_bytes));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&l.recv), recv_bytes));
  }
  send_capacity_ = send_bytes;
  recv_capacity_ = recv_bytes;
}

// startColl's totalnbytes: max(sendBytes, expectedBytes), the in-place span too.
std::uint64_t NcclBackend::slot_span(const CallShape& call) const {
  return call.counts.inplace_elements() * dtype_info(call.dtype).size;
}

// startColl's steps = maxbytes / totalnbytes, with maxbytes the buffers the call uses.
std::uint64_t NcclBackend::slot_for(const CallShape& call, std::size_t k) const {
  const std::uint64_t span = slot_span(call);
  const std::uint64_t cap =
      call.placement == Placement::InPlace ? recv_capacity_ : std::min(send_capacity_, recv_capacity_);
  const std::uint64_t slots = span == 0 ? 1 : cap / span;
  return slots <= 1 ? 0 : k % slots;
}

// startColl shifts both buffers by the same slot * totalnbytes (nccl-tests src/common.cu, startColl).
std::byte* NcclBackend::send_ptr(const CallShape& call, const Local& l, int rank, std::uint64_t slot) const {
  if (call.placement == Placement::OutOfPlace) return l.send + slot * slot_span(call);
  return l.recv + slot * slot_span(call) +
         static_cast<std::uint64_t>(rank) * call.counts.send_inplace_offset * dtype_info(call.dtype).size;
}

// Where the result lands, at every rank (broadcast's root included: NCCL writes its recv buffer).
std::byte* NcclBackend::result_ptr(const CallShape& call, const Local& l, int rank, std::uint64_t slot) const {
  if (call.placement == Placement::OutOfPlace) return l.recv + slot * slot_span(call);
  return l.recv + slot * slot_span(call) +
         static_cast<std::uint64_t>(rank) * call.counts.recv_inplace_offset * dtype_info(call.dtype).size;
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
    const int rank = first_rank() + static_cast<int>(i);
    const auto spec = pattern_spec(*this, call, seed, static_cast<int>(i));
    CUDA_CHECK(cudaSetDevice(l.device));
    device::fill_value(call.dtype, l.recv, inplace ? c.inplace_elements() : c.recv, pattern::kPoison, l.stream);
    device::fill_input(call.dtype, send_ptr(call, l, rank, 0), c.send, spec, l.stream);
  }
  // Every GPU's inputs are in place before any rank's first collective.
  for (const Local& l : locals_) CUDA_CHECK(cudaStreamSynchronize(l.stream));
}

void NcclBackend::enqueue(const CallShape& call, const Local& l, void* comm_handle, int rank,
                          std::uint64_t slot) const {
  const auto comm = static_cast<ncclComm_t>(comm_handle);
  const ncclDataType_t type = nccl_type(call.dtype);
  const std::size_t p = call.counts.param;
  const int n = world_ranks();
  const void* send = send_ptr(call, l, rank, slot);
  void* recv = result_ptr(call, l, rank, slot);
  switch (call.coll) {
    case Coll::AllReduce:
      NCCL_CHECK(ncclAllReduce(send, recv, p, type, nccl_op(call.redop), comm, l.stream));
      break;
    case Coll::AllGather:
      NCCL_CHECK(ncclAllGather(send, recv, p, type, comm, l.stream));
      break;
    case Coll::ReduceScatter:
      NCCL_CHECK(ncclReduceScatter(send, recv, p, type, nccl_op(call.redop), comm, l.stream));
      break;
    case Coll::AllToAll:
      // Both placements as nccl-tests' alltoall.cu (AlltoAllRunColl): one send and one receive per
      // peer in one group, so the two columns compare; ncclAlltoAll (2.28) is not used.
      for (int peer = 0; peer < n; ++peer) {  // inside launch()'s group
        const std::size_t off = static_cast<std::size_t>(peer) * p * dtype_info(call.dtype).size;
        NCCL_CHECK(ncclSend(static_cast<const std::byte*>(send) + off, p, type, peer, comm, l.stream));
        NCCL_CHECK(ncclRecv(static_cast<std::byte*>(recv) + off, p, type, peer, comm, l.stream));
      }
      break;
    case Coll::Broadcast:
      NCCL_CHECK(ncclBroadcast(send, recv, p, type, call.root, comm, l.stream));
      break;
    case Coll::SendRecv:
      NCCL_CHECK(ncclSend(send, p, type, (rank + 1) % n, comm, l.stream));
      NCCL_CHECK(ncclRecv(recv, p, type, (rank - 1 + n) % n, comm, l.stream));
      break;
  }
}

void NcclBackend::launch(const CallShape& call, std::uint64_t slot) {
  if (call.counts.param == 0) return;  // nothing moves (and nothing is checked: recv is 0 too)
  comms_->launch(
      [&](std::size_t i, nccl::Comm comm) {
        select(i);
        enqueue(call, locals_[i], comm, first_rank() + static_cast<int>(i), slot);
      },
      "collective launch");
}

void NcclBackend::grow_events(std::size_t count) {
  Local& l = locals_.front();
  if (l.events.size() >= count) return;
  CUDA_CHECK(cudaSetDevice(l.device));
  while (l.events.size() < count) {
    cudaEvent_t e = nullptr;
    CUDA_CHECK(cudaEventCreate(&e));
    l.events.push_back(e);
  }
}

void NcclBackend::record_event(std::size_t k) {
  const Local& l = locals_.front();
  CUDA_CHECK(cudaSetDevice(l.device));
  CUDA_CHECK(cudaEventRecord(l.events[k], l.stream));
}

void NcclBackend::run(const CallShape& call, int iters, LocalSamples* samples, std::vector<double>* /*starts*/) {
  if (iters <= 0) return;
  const auto n = static_cast<std::size_t>(iters);
  const bool graphs = graph_calls_ > 0 && call.counts.param > 0;
  if (graphs) capture_graphs(call);
  // Event k ends unit k-1 and starts unit k (a call, or a launch of the graphs): n + 1 events time n
  // back-to-back units, and between two events there is only the unit (a blocking communicator's
  // launch adds no wait). Only the first GPU records: one group launches the collective on all of
  // them, and an event per GPU per iteration would add 2 (N - 1) CUDA calls to every small call's
  // time with -g N.
  if (samples != nullptr) {
    grow_events(n + 1);
    samples->resize(locals_.size());
    record_event(0);
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (graphs) launch_graphs();
    else launch(call, slot_for(call, k));
    if (samples != nullptr) record_event(k + 1);
  }
  comms_->wait([&] { return streams_done(); }, "collective");
  if (samples == nullptr) return;
  const double calls_per_unit = calls_per_sample(call);
  std::vector<double> times;
  times.reserve(n);
  for (std::size_t k = 1; k <= n; ++k) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, locals_.front().events[k - 1], locals_.front().events[k]));
    times.push_back(static_cast<double>(ms) / 1000.0 / calls_per_unit);
  }
  // The process's other ranks took part in the same collectives: they report the same times.
  for (auto& out : *samples) out.insert(out.end(), times.begin(), times.end());
}

void NcclBackend::run_once(const CallShape& call) {
  launch(call, 0);
  comms_->wait([&] { return streams_done(); }, "collective");
}

std::int64_t NcclBackend::count_wrong(const CallShape& call, std::uint64_t seed) {
  std::int64_t wrong = 0;
  for (std::size_t i = 0; i < locals_.size(); ++i) {
    const Local& l = locals_[i];
    CUDA_CHECK(cudaSetDevice(l.device));
    wrong += device::count_wrong(call.dtype, result_ptr(call, l, first_rank() + static_cast<int>(i), 0),
                                 call.counts.recv, pattern_spec(*this, call, seed, static_cast<int>(i)), l.stream);
  }
  return wrong;
}

void NcclBackend::corrupt_result(const CallShape& call) {
  if (call.counts.recv == 0 || locals_.empty()) return;
  const Local& l = locals_[0];
  CUDA_CHECK(cudaSetDevice(l.device));
  device::fill_value(call.dtype, result_ptr(call, l, first_rank(), 0), 1, pattern::kPoison, l.stream);
  CUDA_CHECK(cudaStreamSynchronize(l.stream));
}

}  // namespace collbench
