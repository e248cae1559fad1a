#include "bench/versions.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>


namespace collbench {

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return "";
  std::string v(text, static_cast<std::size_t>(std::max(0, len)));
  v = v.substr(0, v.find_first_of(",\n"));  // "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4"
  const auto first = v.find_first_not_of(" \t\r");
  const auto last = v.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : v.substr(first, last - first + 1);
}

std::string nccl_version_text(int code) {
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, code % 10000 / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, code % 1000 / 100, code % 100);
}

std::string cuda_version_text(int v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

}  // namespace collbench
