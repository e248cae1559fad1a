#include "bench/sizes.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>
#include <string>

#include "bench/errors.h"

namespace collbench {

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  const auto bad = [&](std::string_view why) {
    return UsageError(fmt::format("{} '{}': {}; write a byte count such as 8, 64K, 1M or 8G", what, text, why));
  };
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) throw bad("too large");
  if (ec != std::errc() || ptr == text.data()) throw bad("not a number");
  std::string suffix(ptr, end);
  for (char& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = 0;
  if (suffix.empty() || suffix == "B") shift = 0;
  else if (suffix == "K" || suffix == "KB" || suffix == "KIB") shift = 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MIB") shift = 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GIB") shift = 30;
  else if (suffix == "T" || suffix == "TB" || suffix == "TIB") shift = 40;
  else throw bad(fmt::format("unknown unit '{}'", std::string(ptr, end)));
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad("too large");
  return value << shift;
}

std::vector<std::uint64_t> sweep_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, double factor,
                                       std::uint64_t step_bytes) {
  std::vector<std::uint64_t> out;
  if (min_bytes > max_bytes) return out;
  for (std::uint64_t size = min_bytes; size <= max_bytes;) {
    out.push_back(size);
    std::uint64_t next = step_bytes > 0 ? size + step_bytes : static_cast<std::uint64_t>(size * factor);
    if (next <= size) break;  // factor applied to 0, or overflow
    size = next;
  }
  return out;
}

}  // namespace collbench
