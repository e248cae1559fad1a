// Message sizes: parsing "-b 1M" style arguments and expanding -b/-e/-f/-i into the sweep.
#pragma once

#include "common/units.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace collbench {

// "8", "64K", "1M", "8G", "1T", also "1MB" / "1MiB"; binary multiples (K = 1024), as nccl-tests.
// Throws UsageError naming `what` (the option) on anything else.
std::uint64_t parse_size(std::string_view text, std::string_view what);

// min, min*f, ... <= max (or min, min+step, ...), as nccl-tests' loop.
std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor,
                                       std::uint64_t step_bytes);


}  // namespace collbench
