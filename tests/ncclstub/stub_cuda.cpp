// Host stand-in for the cudart entry points collbench calls: device memory is host memory, streams
// run nothing (every NCCL stub call completes at its group end), events are host timestamps.
// Allocations are kept in a table so the NCCL stub and the kernel stand-ins can check that every
// buffer they are given lies inside one allocation of the current device.
#include <cuda_runtime_api.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "tests/ncclstub/stub_state.h"

namespace ncclstub {

State& state() {
  static State s;
  return s;
}

const Allocation* find_allocation(const void* p, std::uint64_t bytes) {
  auto& allocs = state().allocs;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = allocs.upper_bound(a);
  if (it == allocs.begin()) return nullptr;
  --it;
  const Allocation& al = it->second;
  if (a < it->first || a + bytes > it->first + al.bytes) return nullptr;
  return &al;
}

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

int process_index() {
  int up = 0, rank = 0;
  MPI_Initialized(&up);
  if (up) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  else rank = static_cast<int>(getpid() & 0xff);
  return rank;
}

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace ncclstub

using ncclstub::state;

namespace {

struct Event {
  double ms = -1;
  unsigned long long id = 0;  // creation serial, named in the call log
};

cudaError_t device_ok(int d) {
  return d >= 0 && d < ncclstub::env_int("NCCLSTUB_GPUS", 8) ? cudaSuccess : cudaErrorInvalidDevice;
}

std::uint64_t gpu_bytes() {
  return static_cast<std::uint64_t>(ncclstub::env_int("NCCLSTUB_GPU_MIB", 80 * 1024)) << 20;
}

}  // namespace

extern "C" {

// NCCLSTUB_DRIVER_MISMATCH=1: the driver is older than the runtime, as after a half-done AMI update.
cudaError_t cudaGetDeviceCount(int* n) {
  if (ncclstub::env_int("NCCLSTUB_DRIVER_MISMATCH", 0) != 0) {
    *n = 0;
    return cudaErrorInsufficientDriver;
  }
  *n = ncclstub::env_int("NCCLSTUB_GPUS", 8);
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  if (device_ok(d) != cudaSuccess) return cudaErrorInvalidDevice;
  state().device = d;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  *d = state().device;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int d) {
  if (device_ok(d) != cudaSuccess) return cudaErrorInvalidDevice;
  std::memset(prop, 0, sizeof *prop);
  std::snprintf(prop->name, sizeof prop->name, "NCCL stub GPU");
  prop->totalGlobalMem = gpu_bytes();
  prop->major = 9;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId(char* bus, int len, int d) {
  if (device_ok(d) != cudaSuccess) return cudaErrorInvalidDevice;
  // The process in the domain: with NCCLSTUB_GPUS = -g every process sees "its own" GPUs, as with
  // per-rank CUDA_VISIBLE_DEVICES, and no two processes share a bus id.
  std::snprintf(bus, static_cast<std::size_t>(len), "%04x:%02x:00.0", ncclstub::process_index() & 0xffff, d);
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  *total = gpu_bytes();
  std::uint64_t used = 0;
  for (const auto& [base, a] : state().allocs)
    if (a.device == state().device) used += a.bytes;
  *free_bytes = used < *total ? *total - used : 0;
  return cudaSuccess;
}
cudaError_t cudaMalloc(void** p, size_t bytes) {
  *p = std::malloc(bytes == 0 ? 1 : bytes);
  if (*p == nullptr) return cudaErrorMemoryAllocation;
  auto& s = state();
  s.allocs[reinterpret_cast<std::uintptr_t>(*p)] = ncclstub::Allocation{bytes, s.device, ++s.alloc_serial};
  ncclstub::log_line("alloc id=%llu dev=%d bytes=%llu", static_cast<unsigned long long>(s.alloc_serial), s.device,
                     static_cast<unsigned long long>(bytes));
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  if (p == nullptr) return cudaSuccess;
  if (state().allocs.erase(reinterpret_cast<std::uintptr_t>(p)) == 0) return cudaErrorInvalidValue;
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
  *s = reinterpret_cast<cudaStream_t>(new ncclstub::Stream{state().device});
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
  auto* stream = reinterpret_cast<ncclstub::Stream*>(s);
  if (stream != nullptr) delete stream->capture;  // CUDA ends a capture whose stream goes
  delete stream;
  return cudaSuccess;
}
// Waiting on a capturing stream is what CUDA refuses (and what would end its capture).
cudaError_t cudaStreamQuery(cudaStream_t s) {
  return s != nullptr && reinterpret_cast<ncclstub::Stream*>(s)->capture != nullptr ? cudaErrorStreamCaptureUnsupported
                                                                                      : cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) { return cudaStreamQuery(s); }
cudaError_t cudaEventCreate(cudaEvent_t* e) {
  static unsigned long long serial = 0;
  auto* ev = new Event;
  ev->id = ++serial;
  ncclstub::log_line("event dev=%d ev=%llu", state().device, ev->id);
  *e = reinterpret_cast<cudaEvent_t>(ev);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete reinterpret_cast<Event*>(e);
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  // A stream recorded from another device than the current one is what CUDA refuses.
  if (s != nullptr && reinterpret_cast<ncclstub::Stream*>(s)->device != state().device) return cudaErrorInvalidResourceHandle;
  reinterpret_cast<Event*>(e)->ms = ncclstub::now_ms();
  ++state().event_records;
  ncclstub::log_line("record dev=%d ev=%llu", state().device, reinterpret_cast<Event*>(e)->id);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  const auto* x = reinterpret_cast<Event*>(a);
  const auto* y = reinterpret_cast<Event*>(b);
  if (x->ms < 0 || y->ms < 0) return cudaErrorInvalidResourceHandle;
  *ms = static_cast<float>(y->ms - x->ms);
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver) return "CUDA driver version is insufficient for CUDA runtime version";
  return e == cudaSuccess ? "no error" : "NCCL stub CUDA error";
}
const char* cudaGetErrorName(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver) return "cudaErrorInsufficientDriver";
  return e == cudaSuccess ? "cudaSuccess" : "cudaErrorStub";
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}

}  // extern "C"
