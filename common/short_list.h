// A list in a message that stays readable on hundreds of nodes: the first few items, then a count.
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace collbench {

// The first `shown` items joined by `sep`, then "and N more" for the rest: "a, b and 3 more" for
// names, "x: why; y: why; and 3 more" when `sep` is "; " (items that are clauses).
inline std::string short_list(const std::vector<std::string>& items, std::size_t shown, std::string_view sep) {
  const std::size_t n = std::min(items.size(), shown);
  std::string out = fmt::format("{}", fmt::join(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(n), sep));
  if (items.size() > n) out += fmt::format("{}and {} more", sep == "; " ? "; " : " ", items.size() - n);
  return out;
}

}  // namespace collbench
