// State shared by the cudart and NCCL stand-ins (one process; collbench drives them from one thread).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>

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

State& state();
// The allocation holding [p, p + bytes), or null.
const Allocation* find_allocation(const void* p, std::uint64_t bytes);
int env_int(const char* name, int fallback);
int process_index();  // MPI_COMM_WORLD rank (pid bits before MPI_Init)
double now_ms();
// One line of the call log (NCCLSTUB_LOG=DIR: DIR/calls.<process>.log), when enabled.
void log_line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ncclstub
