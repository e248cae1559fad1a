// Whether a sweep's buffers fit on a GPU with room left for NCCL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace collbench {

// NCCL allocates after the buffers, lazily (NVLS buffers, proxies, split communicators); nccl-tests
// keeps 1 GiB of the free memory for it (common.cu: maxMem minus 1 << 30).
inline constexpr std::uint64_t kNcclHeadroomBytes = 1ull << 30;

// Why buffers of `need` bytes cannot be allocated out of `available` free bytes while keeping the
// headroom free, with the largest buffer size that would fit; nullopt when they fit.
std::optional<std::string> gpu_buffers_do_not_fit(std::uint64_t need, std::uint64_t available);

}  // namespace collbench
