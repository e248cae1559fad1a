// The MPI error check: names the call, the rank and the host.
#pragma once

#include <mpi.h>

#include <string>

namespace collbench {

[[noreturn]] void mpi_fail(const char* call, int code);

inline void mpi_check(int code, const char* call) {
  if (code != MPI_SUCCESS) mpi_fail(call, code);
}

std::string this_host();

}  // namespace collbench

#define MPI_CHECK(call) ::collbench::mpi_check((call), #call)
