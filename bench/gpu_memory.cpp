#include "bench/gpu_memory.h"

#include <fmt/format.h>

#include "bench/sizes.h"

namespace collbench {

std::optional<std::string> gpu_buffers_do_not_fit(std::uint64_t need, std::uint64_t available) {
  if (need + kNcclHeadroomBytes <= available) return std::nullopt;
  const std::uint64_t room = available > kNcclHeadroomBytes ? available - kNcclHeadroomBytes : 0;
  return fmt::format("the buffers need {} and NCCL needs {} kept free, but {} is free; lower -e so the buffers "
                     "take at most {}",
                     size_text(need), size_text(kNcclHeadroomBytes), size_text(available), size_text(room));
}

}  // namespace collbench
