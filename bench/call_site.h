// Where a failed call was made, for the error helpers of each API (bench/mpi_check.h,
// bench/cuda_check.h, bench/ofi/ofi_check.h). Host C++20 only: CUDA sources see bench/errors.h alone.
#pragma once

#include <source_location>
#include <string>
#include <string_view>

namespace collbench {

// " (at bench/nccl_backend.cpp:123)": the folder and file of the call, and its line.
inline std::string call_site(const std::source_location& at) {
  const std::string_view file = at.file_name();
  const auto slash = file.rfind('/');
  const auto folder = slash == std::string_view::npos || slash == 0 ? std::string_view::npos : file.rfind('/', slash - 1);
  return " (at " + std::string(folder == std::string_view::npos ? file : file.substr(folder + 1)) + ":" +
         std::to_string(at.line()) + ")";
}

}  // namespace collbench
