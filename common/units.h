// How a byte count reads, everywhere collbench prints one: measurement errors, tables, findings.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace collbench {

// "100 B", "1 KiB", "8 GiB": exact binary units where the size allows; "1.5 MiB" for a size of a
// MiB or more that no unit divides.
inline std::string size_text(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t v = bytes;
  while (unit < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0 && bytes >= 1024 * 1024) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / 1048576.0);
  return fmt::format("{} {}", v, kUnits[unit]);
}

}  // namespace collbench
