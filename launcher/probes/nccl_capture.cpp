#include "launcher/probes/nccl_capture.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/mpi_check.h"

namespace collbench {
namespace fs = std::filesystem;

std::string nccl_log_path(const std::string& dir, const std::string& host, int pid) {
  std::string h = host.substr(0, host.find('.'));
  std::replace(h.begin(), h.end(), '%', '-');
  std::replace(h.begin(), h.end(), '/', '-');
  return fmt::format("{}/collbench-nccl.{}.{}.log", dir, h, pid);
}

std::string default_nccl_capture_dir() {
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  return ((ec ? fs::path("/tmp") : tmp) / "collbench-nccl").string();
}

void prepare_nccl_debug_capture(const std::string& dir) {
  if (std::getenv("NCCL_DEBUG") != nullptr) return;  // the user's own settings win
  // NCCL writes to stdout when it cannot open the file: better no capture than a flooded terminal.
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!fs::is_directory(dir, ec)) return;
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_SUBSYS", "INIT,NET", 1);
  setenv("NCCL_DEBUG_FILE", (dir + "/collbench-nccl.%h.%p.log").c_str(), 1);
  setenv(kNcclCaptureVar, dir.c_str(), 1);
}

std::optional<report::NcclLogFacts> read_nccl_debug_capture() {
  const char* dir = std::getenv(kNcclCaptureVar);
  if (dir == nullptr) return std::nullopt;
  try {
    const int pid = static_cast<int>(getpid());
    std::string path = nccl_log_path(dir, this_host(), pid);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      // NCCL's idea of the host name may differ from ours; the pid alone identifies our file.
      const std::string suffix = fmt::format(".{}.log", pid);
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("collbench-nccl.", 0) == 0 && name.size() > suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
          path = it->path().string();
      }
    }
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    fs::remove(path, ec);
    return report::parse_nccl_log(text.str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace collbench
