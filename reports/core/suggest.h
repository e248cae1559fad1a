// "Did you mean": the known name nearest to a mistyped one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::report {

// Edit distance (insertions, deletions, substitutions), ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The known name nearest to `wanted` when it is near enough to be a typo of it: at most 2 edits,
// or a quarter of its length for long names. Ties go to the first in `known`.
std::optional<std::string> did_you_mean(std::string_view wanted, const std::vector<std::string>& known);

}  // namespace collbench::report
