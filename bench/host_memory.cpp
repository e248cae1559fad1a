#include "bench/host_memory.h"

#include <fmt/format.h>

#include <fstream>
#include <string>

#include "bench/errors.h"
#include "common/units.h"

namespace collbench {

std::uint64_t host_memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

void check_host_buffers(std::uint64_t bytes, int buffers, int local_ranks, const char* what, std::uint64_t available) {
  if (available == 0) available = host_memory_available();
  if (available == 0) return;
  const long double need = static_cast<long double>(bytes) * buffers * local_ranks;
  if (need > static_cast<long double>(available) * 0.9L)
    throw UsageError(fmt::format("-e too large: {} rank(s) on this node need {} of {} but {} is available; lower -e",
                                 local_ranks,
                                 need >= 18446744073709551615.0L ? std::string("over 16 EiB")
                                                                 : size_text(static_cast<std::uint64_t>(need)),
                                 what, size_text(available)));
}

}  // namespace collbench
