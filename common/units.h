// How a byte count reads, everywhere collbench prints one: measurement errors, tables, findings.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace collbench {

// "100 B", "1 KiB", "8 GiB", "1536 KiB": exact binary units where the size allows and the number
// stays short (below 1 MiB, or at most four digits); else one decimal in the largest unit it fills,
// "1.5 MiB", "22.9 GiB" (memory as /proc/meminfo counts it, in KiB, reads so too).
inline std::string size_text(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  std::uint64_t v = bytes;
  while (unit < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++unit;
  }
  if (bytes < 1024 * 1024 || v < 10000) return fmt::format("{} {}", v, kUnits[unit]);
  int big = 0;
  double x = static_cast<double>(bytes);
  while (big < 6 && x >= 1024) {
    x /= 1024;
    ++big;
  }
  return fmt::format("{:.1f} {}", x, kUnits[big]);
}

// "4 us", "12.5 ms", "3.0 s": a duration in microseconds at a precision it can carry.
inline std::string duration_text(double us) {
  if (us >= 1e6) return fmt::format("{:.1f} s", us / 1e6);
  if (us >= 1e4) return fmt::format("{:.0f} ms", us / 1e3);
  if (us >= 1e3) return fmt::format("{:.1f} ms", us / 1e3);
  return fmt::format("{:.0f} us", us);
}

}  // namespace collbench
