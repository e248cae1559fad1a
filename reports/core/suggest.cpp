#include "reports/core/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace collbench::report {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> did_you_mean(std::string_view wanted, const std::vector<std::string>& known) {
  const std::size_t allowed = std::max<std::size_t>(2, wanted.size() / 4);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const auto& k : known) {
    const std::size_t d = edit_distance(wanted, k);
    if (d < best_distance) best = k, best_distance = d;
  }
  return best;
}

}  // namespace collbench::report
