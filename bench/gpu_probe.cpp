#include "bench/gpu_probe.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

namespace collbench {

std::string device_dir() {
  const char* dir = std::getenv("COLLBENCH_DEV_DIR");
  return dir != nullptr && *dir != 0 ? dir : "/dev";
}

int nvidia_device_file_count(const std::string& dev_dir) {
  int n = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dev_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 6 && name.rfind("nvidia", 0) == 0 && name.find_first_not_of("0123456789", 6) == std::string::npos)
      ++n;
  }
  return n;
}

bool nvidia_device_files_present(const std::string& dev_dir) { return nvidia_device_file_count(dev_dir) > 0; }

std::string describe_probe(const GpuProbe& p) {
  if (p.count > 0) return fmt::format("{} GPU(s) visible", p.count);
  if (!p.cuda_error.empty() && p.device_files)
    return fmt::format("a GPU is present but CUDA cannot use it ({})", p.cuda_error);
  if (!p.cuda_error.empty()) return fmt::format("no GPU visible ({})", p.cuda_error);
  return "no GPU visible";
}

bool gpu_unusable(const GpuProbe& p) {
  return p.device_files && p.count == 0 && !p.cuda_error.empty() && !p.cuda_error.starts_with("cudaErrorNoDevice");
}

AutoChoice decide_auto(const GpuProbe& mine, bool all_have_gpus, bool any_has_gpus) {
  if (all_have_gpus) return {true, fmt::format("auto: {}", describe_probe(mine)), std::nullopt};
  if (!any_has_gpus) {
    std::string reason = "auto: " + describe_probe(mine);
    if (mine.device_files && !mine.cuda_error.empty()) reason += "; measuring host MPI instead";
    return {false, reason, std::nullopt};
  }
  if (mine.count > 0) return {true, "auto: GPUs visible", std::nullopt};
  return {false, "", fmt::format("--backend auto: this process has {} while other processes use their GPUs; fix "
                                 "this host's GPU or driver, or leave the host out of the run",
                                 describe_probe(mine))};
}

std::optional<std::string> gpu_shared(const std::vector<std::vector<std::string>>& bus_ids,
                                      const std::vector<int>& mpi_ranks, std::size_t me) {
  for (const std::string& bus : bus_ids[me]) {
    std::vector<int> users;
    for (std::size_t p = 0; p < bus_ids.size(); ++p)
      for (const std::string& other : bus_ids[p])
        if (other == bus) users.push_back(mpi_ranks[p]);
    if (users.size() > 1) {
      std::string list;
      for (int r : users) list += (list.empty() ? "" : ", ") + std::to_string(r);
      return fmt::format("GPU {} is driven by more than one process (ranks {}, -g counted); start one process "
                         "per GPU, or give each process its own CUDA_VISIBLE_DEVICES",
                         bus, list);
    }
  }
  return std::nullopt;
}

}  // namespace collbench
