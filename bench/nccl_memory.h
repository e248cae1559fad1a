// How much of a GPU's memory the nccl backend leaves to NCCL: nccl-tests 2.19 (src/common.cu)
// keeps min(ceil(total / 16 GiB), 4) GiB + 1 GiB of it, for NCCL's own buffers (NVLS, proxies,
// split communicators) allocated after the test's. The same rule refuses a sweep before anything
// is measured, where nccl-tests would refuse it too.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

#include "common/units.h"

namespace collbench {

inline std::uint64_t nccl_headroom_bytes(std::uint64_t total) {
  constexpr std::uint64_t GiB = 1ull << 30;
  return std::min<std::uint64_t>((total + 16 * GiB - 1) / (16 * GiB), 4) * GiB + GiB;
}

// Why buffers of `need` bytes do not fit in `free_bytes` with the headroom of a GPU of `total`
// bytes kept, with the largest buffer size that would; nullopt when they fit.
inline std::optional<std::string> nccl_buffers_do_not_fit(std::uint64_t need, std::uint64_t free_bytes,
                                                          std::uint64_t total) {
  const std::uint64_t keep = nccl_headroom_bytes(total);
  if (need + keep <= free_bytes) return std::nullopt;
  return fmt::format("the buffers need {} and NCCL needs {} kept free on this {} GPU (nccl-tests' headroom: "
                     "min(total / 16 GiB, 4) GiB + 1 GiB), but {} is free; lower -e so the buffers take at most {}",
                     size_text(need), size_text(keep), size_text(total), size_text(free_bytes),
                     size_text(free_bytes > keep ? free_bytes - keep : 0));
}

}  // namespace collbench
