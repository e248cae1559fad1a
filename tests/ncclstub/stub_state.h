// State shared by the cudart and NCCL stand-ins (one process; collbench drives them from one thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace ncclstub {

struct Allocation {
  std::uint64_t bytes;
  int device;
  std::uint64_t id;  // serial number, named in the call log
};

struct State {
  int device = 0;
  std::map<std::uintptr_t, Allocation> allocs;  // by base address
  std::uint64_t alloc_serial = 0;
  std::uint64_t event_records = 0;
  std::FILE* log = nullptr;
  bool log_opened = false;
};

// CUDA graphs (stub_graph.cpp): while a stream captures, the NCCL stand-in hands each group of
// calls to its graph instead of running it; a group runs once every graph holding it is launched.
struct CapturedGroup {
  std::function<int()> run;  // the group's calls; an ncclResult_t
  std::size_t graphs = 0;    // graphs holding it (one per GPU of the group)
  std::size_t arrived = 0;   // of them, launched since it last ran
};
struct Graph {
  int device;
  std::vector<std::shared_ptr<CapturedGroup>> groups;
};
struct Stream {
  int device;
  Graph* capture = nullptr;  // between cudaStreamBeginCapture and cudaStreamEndCapture
};

State& state();
// The allocation holding [p, p + bytes), or null.
const Allocation* find_allocation(const void* p, std::uint64_t bytes);
int env_int(const char* name, int fallback);
int process_index();  // MPI_COMM_WORLD rank (pid bits before MPI_Init)
double now_ms();
// One line of the call log (NCCLSTUB_LOG=DIR: DIR/calls.<process>.log), when enabled.
void log_line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ncclstub
