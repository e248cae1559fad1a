// The collectives' names as collbench writes them everywhere (options, tables, JSON, thresholds):
// bench/collectives.cpp measures exactly these (a unit test holds the two together), and the
// report side checks names against this list without depending on the measuring code.
#pragma once

#include <algorithm>
#include <array>
#include <string_view>

namespace collbench {

inline constexpr std::array<std::string_view, 6> kOpNames{"all_reduce", "all_gather", "reduce_scatter",
                                                         "all_to_all", "broadcast",  "sendrecv"};

inline bool is_op_name(std::string_view name) {
  return std::find(kOpNames.begin(), kOpNames.end(), name) != kOpNames.end();
}

}  // namespace collbench
