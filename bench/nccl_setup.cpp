// NcclBackend's set-up and teardown: GPUs, streams, communicators. The calls are in nccl_backend.cpp.
#include <fmt/format.h>
#include <mpi.h>


#include "bench/cuda_check.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "bench/nccl_backend.h"

namespace collbench {

GpuProbe probe_gpus(const std::string& dev_dir) {
  GpuProbe p;
  p.device_files = nvidia_device_files_present(dev_dir);
  int n = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&n); e != cudaSuccess) {
    p.cuda_error = fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e));
    cudaGetLastError();  // do not leave the error for the next CUDA call to report
    return p;
  }
  p.count = n;
  return p;
}

NcclBackend::NcclBackend(const NcclSetup& setup, Control& control)
    : timeout_s_(setup.timeout_s), graph_calls_(setup.graph_calls) {
  // Every step ends agreed, so a process that fails one never leaves the others in the next collective.
  auto step = [&](const char* what, const std::function<void()>& f) {
    if (setup.watchdog != nullptr) setup.watchdog->arm(std::string("backend set-up: ") + what, setup.timeout_s);
    agreed_step(control, setup.report, f);
  };
  int mpi_rank = 0, size = 1;
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm node = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mpi_rank, MPI_INFO_NULL, &node));
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);

  const int gpus = setup.gpus_per_process;
  try {
    step("opening the GPUs", [&] {
      if (setup.inject_failure) throw RunError("injected set-up failure (--inject setup)");
      open_devices(gpus, node_rank, node_size);
    });
    const auto bus_ids = node_bus_ids(node, node_size);
    const auto ranks = node_mpi_ranks(node, node_size, mpi_rank);
    step("checking that no two processes share a GPU", [&] {
      if (auto why = gpu_shared(bus_ids, ranks, static_cast<std::size_t>(node_rank)))
        throw UsageError(fmt::format("{} (host {})", *why, this_host()));
    });
    nccl::UniqueId id;
    step("NCCL unique id", [&] {
      if (mpi_rank == 0) NCCL_CHECK(ncclGetUniqueId(reinterpret_cast<ncclUniqueId*>(id.bytes.data())));
    });
    MPI_CHECK(MPI_Bcast(id.bytes.data(), static_cast<int>(id.bytes.size()), MPI_BYTE, 0, MPI_COMM_WORLD));
    comms_ = std::make_unique<nccl::CommSet>(nccl::real_api(), nccl::CommSettings{true, timeout_s_, this_host()});
    step("NCCL communicator init", [&] {
      comms_->init(size * gpus, id, mpi_rank * gpus, locals_.size(), [&](std::size_t i) { select(i); });
    });
  } catch (...) {
    MPI_Comm_free(&node);
    release();  // the destructor does not run for a throwing constructor
    throw;
  }
  MPI_Comm_free(&node);
}

std::vector<std::vector<std::string>> NcclBackend::node_bus_ids(MPI_Comm node, int node_size) const {
  constexpr std::size_t kWidth = 32;  // "0000:53:00.0" and room to spare
  std::string mine(locals_.size() * kWidth, '\0');
  for (std::size_t i = 0; i < locals_.size(); ++i) locals_[i].bus_id.copy(&mine[i * kWidth], kWidth - 1);
  std::string all(mine.size() * static_cast<std::size_t>(node_size), '\0');
  MPI_CHECK(MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                          static_cast<int>(mine.size()), MPI_CHAR, node));
  std::vector<std::vector<std::string>> out(static_cast<std::size_t>(node_size));
  for (std::size_t p = 0; p < out.size(); ++p)
    for (std::size_t i = 0; i < locals_.size(); ++i) out[p].emplace_back(all.c_str() + (p * locals_.size() + i) * kWidth);
  return out;
}

std::vector<int> NcclBackend::node_mpi_ranks(MPI_Comm node, int node_size, int mpi_rank) {
  std::vector<int> ranks(static_cast<std::size_t>(node_size));
  MPI_CHECK(MPI_Allgather(&mpi_rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, node));
  return ranks;
}

NcclBackend::~NcclBackend() { release(); }

NcclBackend::NcclBackend(const NcclBackend& parent, std::unique_ptr<nccl::CommSet> comms)
    : timeout_s_(parent.timeout_s_), graph_calls_(parent.graph_calls_), comms_(std::move(comms)) {
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
  auto child = comms_->split(color, [&](std::size_t i) { select(i); });
  return std::unique_ptr<Backend>(new NcclBackend(*this, std::move(child)));
}

void NcclBackend::select(std::size_t local) const { CUDA_CHECK(cudaSetDevice(locals_[local].device)); }

void NcclBackend::open_devices(int gpus, int node_rank, int node_size) {
  if (gpus < 1) throw UsageError(fmt::format("-g {} is not a GPU count; use -g 1 or more", gpus));
  const GpuProbe probe = probe_gpus();
  if (probe.count == 0)
    throw RunError(fmt::format("the nccl backend needs a GPU but this process has {} (check CUDA_VISIBLE_DEVICES "
                               "and the driver); use --backend mpi",
                               describe_probe(probe)));
  const int visible = probe.count;
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

bool NcclBackend::streams_done() const {
  for (const Local& l : locals_) {
    const cudaError_t q = cudaStreamQuery(l.stream);
    if (q == cudaErrorNotReady) return false;
    cuda_check(q, "cudaStreamQuery");
  }
  return true;
}

void NcclBackend::release() noexcept {
  drop_graphs();  // they hold the communicators' calls
  comms_.reset();  // finalizes and destroys (or aborts) the communicators first
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
  drop_graphs();  // they hold the buffers' addresses
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
