#include "bench/versions.h"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>

#if COLLBENCH_WITH_NCCL
#include <cuda_runtime_api.h>
#include <nccl.h>
#endif

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

std::map<std::string, std::string> library_versions() {
  std::map<std::string, std::string> v;
  if (std::string mpi = mpi_library_version(); !mpi.empty()) v["mpi"] = std::move(mpi);
#if COLLBENCH_WITH_NCCL
  if (int code = 0; ncclGetVersion(&code) == ncclSuccess && code > 0) v["nccl"] = nccl_version_text(code);
  if (int d = 0; cudaDriverGetVersion(&d) == cudaSuccess && d > 0) v["cuda_driver"] = cuda_version_text(d);
  if (int r = 0; cudaRuntimeGetVersion(&r) == cudaSuccess && r > 0) v["cuda_runtime"] = cuda_version_text(r);
#endif
  return v;
}

}  // namespace collbench
