#include "bench/gpu_memory.h"

#include <fmt/format.h>

#include "bench/sizes.h"

namespace collbench {

std::optional<std::string> gpu_buffers_do_not_fit(std::uint64_t need, std::uint64_t available) {
  if (need + kNcclHeadroomBytes <= available) return std::nullopt;
  const std::uint64_t room = available > kNcclHeadroomBytes ? available - kNcclHeadroomBytes : 0;
  return fmt::format("the buffers need {} and NCCL needs {} kept free, but {} is free; lower -e so the buffers "
                     "take at most {}",
                     format_bytes(need), format_bytes(kNcclHeadroomBytes), format_bytes(available), format_bytes(room));
}

}  // namespace collbench
