#include "launcher/inputs/installed.h"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace collbench {

std::string default_thresholds_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const fs::path& candidate : {exe.parent_path().parent_path() / "share/collbench/thresholds",
                                      exe.parent_path().parent_path() / "thresholds"})
      if (fs::is_directory(candidate)) return candidate.string();
  }
  return COLLBENCH_SOURCE_THRESHOLDS;
}

}  // namespace collbench
