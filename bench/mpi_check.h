// The MPI error check: names the call, the rank and the host.
#pragma once

#include "bench/call_site.h"

#include <mpi.h>

#include <string>

namespace collbench {

[[noreturn]] void mpi_fail(const char* call, int code, const std::source_location& at = std::source_location::current());

inline void mpi_check(int code, const char* call, const std::source_location& at = std::source_location::current()) {
  if (code != MPI_SUCCESS) mpi_fail(call, code, at);
}

std::string this_host();

// A private duplicate of MPI_COMM_WORLD that returns errors instead of aborting, with its rank and
// size: each user of MPI gets its own, so their messages never mix.
MPI_Comm dup_world(int* rank, int* size);

}  // namespace collbench

#define MPI_CHECK(call) ::collbench::mpi_check((call), #call)
