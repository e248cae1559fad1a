#include "bench/mpi_backend.h"

#include "bench/host_memory.h"
#include "bench/versions.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/host_pattern.h"
#include "bench/mpi_check.h"
#include "bench/sizes.h"

namespace collbench {
namespace {

MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::Int8: return MPI_INT8_T;
    case DType::Uint8: return MPI_UINT8_T;
    case DType::Int32: return MPI_INT32_T;
    case DType::Uint32: return MPI_UINT32_T;
    case DType::Int64: return MPI_INT64_T;
    case DType::Uint64: return MPI_UINT64_T;
    case DType::Half:
    case DType::BFloat16: return MPI_UINT16_T;  // moved as bits; never reduced
    case DType::Float: return MPI_FLOAT;
    case DType::Double: return MPI_DOUBLE;
  }
  return MPI_BYTE;
}

MPI_Op mpi_op(RedOp op) {
  switch (op) {
    case RedOp::Sum: return MPI_SUM;
    case RedOp::Prod: return MPI_PROD;
    case RedOp::Max: return MPI_MAX;
    case RedOp::Min: return MPI_MIN;
  }
  return MPI_SUM;
}

constexpr int kSendRecvTag = 7;

}  // namespace

void MpiBackend::FreeDeleter::operator()(void* p) const { std::free(p); }

MpiBackend::MpiBackend() : comm_(dup_world(&rank_, &size_)) {}

MpiBackend::MpiBackend(MPI_Comm comm) : comm_(comm) {
  MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

std::unique_ptr<Backend> MpiBackend::split(int color) {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split(comm_, color, rank_, &sub));
  return std::unique_ptr<Backend>(new MpiBackend(sub));
}

MpiBackend::~MpiBackend() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

std::vector<DeviceDesc> MpiBackend::devices() const { return {DeviceDesc{-1, "cpu", "host memory"}}; }

std::map<std::string, std::string> MpiBackend::versions() const { return {{"mpi", mpi_library_version()}}; }

std::optional<std::string> MpiBackend::unsupported(const CallShape& call) const {
  const auto& info = collective_info(call.coll);
  if (info.reduces && (call.dtype == DType::Half || call.dtype == DType::BFloat16))
    return fmt::format("the mpi backend cannot reduce {} (MPI has no such type); use -d float or --backend nccl",
                       call.dtype == DType::Half ? "half" : "bfloat16");
  if (call.counts.send > static_cast<std::uint64_t>(INT_MAX) || call.counts.recv > static_cast<std::uint64_t>(INT_MAX))
    return fmt::format("{} elements exceed MPI's int count limit; use a larger -d or a smaller -e",
                       std::max(call.counts.send, call.counts.recv));
  return std::nullopt;
}

void MpiBackend::reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) {
  recv_bytes = std::max(recv_bytes, send_bytes);  // the in-place buffer holds either
  if (send_bytes <= send_capacity_ && recv_bytes <= recv_capacity_) return;
  send_.reset();
  recv_.reset();
  send_capacity_ = recv_capacity_ = 0;

  MPI_Comm node = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int local = 1;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  check_host_buffers(send_bytes + recv_bytes, 1, local, "host buffers");

  const auto alloc = [](std::uint64_t bytes) {
    const std::size_t rounded = (static_cast<std::size_t>(bytes) + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(4096, rounded == 0 ? 4096 : rounded);
    if (p == nullptr) throw RunError(fmt::format("could not allocate {} of host memory", size_text(bytes)));
    std::memset(p, 0, rounded == 0 ? 4096 : rounded);  // touch the pages before anything is timed
    return Buffer(static_cast<std::byte*>(p));
  };
  send_ = alloc(send_bytes);
  recv_ = alloc(recv_bytes);
  send_capacity_ = send_bytes;
  recv_capacity_ = recv_bytes;
}

void MpiBackend::fill(const CallShape& call, std::uint64_t seed) {
  const auto spec = pattern_spec(*this, call, seed, 0);
  const std::size_t elt = dtype_info(call.dtype).size;
  const auto& c = call.counts;
  if (call.placement == Placement::OutOfPlace) {
    host_fill_input(call.dtype, send_.get(), c.send, spec);
    host_fill_value(call.dtype, recv_.get(), c.recv, pattern::kPoison);
  } else {
    host_fill_value(call.dtype, recv_.get(), c.inplace_elements(), pattern::kPoison);
    host_fill_input(call.dtype, recv_.get() + rank_ * c.send_inplace_offset * elt, c.send, spec);
  }
}

void MpiBackend::call_once(const CallShape& call) {
  const MPI_Datatype type = mpi_type(call.dtype);
  const int p = static_cast<int>(call.counts.param);
  const bool inplace = call.placement == Placement::InPlace;
  void* buf = recv_.get();
  const void* send = inplace ? MPI_IN_PLACE : send_.get();
  switch (call.coll) {
    case Coll::AllReduce:
      MPI_CHECK(MPI_Allreduce(send, buf, p, type, mpi_op(call.redop), comm_));
      break;
    case Coll::AllGather:
      MPI_CHECK(MPI_Allgather(send, p, type, buf, p, type, comm_));
      break;
    case Coll::ReduceScatter:
      MPI_CHECK(MPI_Reduce_scatter_block(send, buf, p, type, mpi_op(call.redop), comm_));
      break;
    case Coll::AllToAll:
      MPI_CHECK(MPI_Alltoall(send, p, type, buf, p, type, comm_));
      break;
    case Coll::Broadcast:
      // Out of place, the root broadcasts from its send buffer: that buffer is its result.
      MPI_CHECK(MPI_Bcast(!inplace && rank_ == call.root ? send_.get() : buf, p, type, call.root, comm_));
      break;
    case Coll::SendRecv: {
      const int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
      if (inplace)
        MPI_CHECK(MPI_Sendrecv_replace(buf, p, type, next, kSendRecvTag, prev, kSendRecvTag, comm_, MPI_STATUS_IGNORE));
      else
        MPI_CHECK(MPI_Sendrecv(send_.get(), p, type, next, kSendRecvTag, buf, p, type, prev, kSendRecvTag, comm_,
                               MPI_STATUS_IGNORE));
      break;
    }
  }
}

void MpiBackend::run(const CallShape& call, int iters, LocalSamples* samples, std::vector<double>* starts) {
  if (samples != nullptr) samples->resize(1);
  for (int i = 0; i < iters; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    call_once(call);
    const auto t1 = std::chrono::steady_clock::now();
    if (samples != nullptr) (*samples)[0].push_back(std::chrono::duration<double>(t1 - t0).count());
    if (starts != nullptr) starts->push_back(std::chrono::duration<double>(t0.time_since_epoch()).count());
  }
}

const std::byte* MpiBackend::result(const CallShape& call) const {
  if (call.placement == Placement::OutOfPlace)
    return call.coll == Coll::Broadcast && rank_ == call.root ? send_.get() : recv_.get();
  // MPI's in-place reduce_scatter leaves the block at the start of the buffer.
  if (call.coll == Coll::ReduceScatter) return recv_.get();
  return recv_.get() + rank_ * call.counts.recv_inplace_offset * dtype_info(call.dtype).size;
}

std::int64_t MpiBackend::count_wrong(const CallShape& call, std::uint64_t seed) {
  return host_count_wrong(call.dtype, result(call), call.counts.recv, pattern_spec(*this, call, seed, 0));
}

void MpiBackend::corrupt_result(const CallShape& call) {
  if (call.counts.recv == 0) return;
  host_fill_value(call.dtype, const_cast<std::byte*>(result(call)), 1, pattern::kPoison);
}

}  // namespace collbench
