// Library versions as text: what the run's header, the environment audit and a regression hunt after
// an AMI update compare side by side (library_versions() in bench/nccl_presence.h gathers them).
#pragma once

#include <map>
#include <string>

namespace collbench {

// "Open MPI v4.1.4" (MPI_Get_library_version up to its first comma or line); "" when it fails.
// Allowed before MPI_Init.
std::string mpi_library_version();

// NCCL's version code as text: 2.28.9 is 22809; before 2.9 it was 1000 * major + 100 * minor + patch.
std::string nccl_version_text(int code);
// CUDA's version number as text: 12040 -> "12.4".
std::string cuda_version_text(int v);

}  // namespace collbench
