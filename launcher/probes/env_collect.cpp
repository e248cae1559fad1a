#include "launcher/probes/env_collect.h"

#include "bench/nccl_presence.h"

#include <fmt/format.h>
#include <mpi.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <thread>

#include "bench/mpi_check.h"
#include "launcher/job/world.h"
#include "reports/thresholds/instance_types.h"
#include "reports/env/nccl_log.h"

#if COLLBENCH_WITH_LIBFABRIC
#include <rdma/fabric.h>
#endif

extern char** environ;

namespace collbench {
namespace fs = std::filesystem;

namespace {

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c) && c != '\0'; };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

std::string env_or(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

std::optional<std::uint64_t> limit_kb(int resource) {
  rlimit rl{};
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<std::uint64_t>(rl.rlim_cur) / 1024;
}

std::map<std::string, std::string> relevant_env() {
  const bool ours = std::getenv(kNcclCaptureVar) != nullptr;
  std::map<std::string, std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = entry.substr(0, eq);
    const bool wanted = key.rfind("NCCL_", 0) == 0 || key.rfind("FI_", 0) == 0 || key == "CUDA_VISIBLE_DEVICES" ||
                        key == "NVIDIA_VISIBLE_DEVICES";
    if (!wanted) continue;
    if (ours && (key == "NCCL_DEBUG" || key == "NCCL_DEBUG_SUBSYS" || key == "NCCL_DEBUG_FILE")) continue;
    if (key == "NCCL_COMM_BLOCKING") continue;  // collbench sets it itself (main.cpp), whatever the user's was
    out[key] = entry.substr(eq + 1);
  }
  return out;
}

void add_library_versions(std::map<std::string, std::string>& versions) {
  versions = collbench::library_versions();
#if COLLBENCH_WITH_LIBFABRIC
  const std::uint32_t fi = fi_version();
  versions["libfabric"] = fmt::format("{}.{}", FI_MAJOR(fi), FI_MINOR(fi));
#endif
}

// The GPUs this process sees, and CUDA's error when device files say a GPU is there that CUDA
// cannot use (a driver/runtime mismatch, a GPU off the bus).
GpuProbe visible_gpus(const std::string& dev_dir) {
  if (std::optional<GpuProbe> cuda = probe_cuda_gpus(dev_dir)) return *cuda;
  const int files = nvidia_device_file_count(dev_dir);
  return GpuProbe{files, "", files > 0};
}

// Every process's string, on rank 0 (the pattern of launcher/job/world.cpp, on a private communicator).
}  // namespace

std::string read_instance_type(const std::string& dmi_product_name) {
  std::ifstream in(dmi_product_name);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  line = trim(line);
  return report::looks_like_instance_type(line) ? line : "";
}

bool is_efa_device(const std::string& device_dir) {
  const fs::path dir(device_dir);
  std::error_code link_ec;
  const fs::path driver = fs::read_symlink(dir / "device" / "driver", link_ec);
  return dir.filename().string().rfind("efa", 0) == 0 || (!link_ec && driver.filename() == "efa");
}

int count_efa_devices(const std::string& infiniband_dir) {
  int n = 0;
  std::error_code ec;
  for (fs::directory_iterator it(infiniband_dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_efa_device(it->path().string())) ++n;
  return n;
}

std::string find_ofi_plugin(const std::string& nccl_net_plugin, const std::vector<std::string>& dirs) {
  std::string lowered = nccl_net_plugin;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lowered == "none") return "";  // NCCL loads no external plugin then
  std::error_code ec;
  std::vector<std::string> names;
  if (!nccl_net_plugin.empty()) {
    if (nccl_net_plugin.find('/') != std::string::npos)
      return fs::is_regular_file(nccl_net_plugin, ec) ? nccl_net_plugin : "";
    if (nccl_net_plugin.find(".so") != std::string::npos) names.push_back(nccl_net_plugin);
    names.push_back("libnccl-net-" + nccl_net_plugin + ".so");
  } else {
    names = {"libnccl-net-ofi.so", "libnccl-net.so", "libnccl-net-aws-ofi.so"};
  }
  for (const auto& dir : dirs)
    for (const auto& name : names) {
      const fs::path p = fs::path(dir) / name;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
  return "";
}

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  std::stringstream ld(env_or("LD_LIBRARY_PATH"));
  for (std::string d; std::getline(ld, d, ':');)
    if (!d.empty()) dirs.push_back(d);
  for (const char* base : {"/opt/amazon/ofi-nccl", "/opt/aws-ofi-nccl"})
    for (const char* sub : {"/lib", "/lib64", "/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu"})
      dirs.push_back(std::string(base) + sub);
  dirs.push_back("/usr/local/lib");
  // Directories the dynamic linker knows from /etc/ld.so.conf.d (NCCL's dlopen finds plugins there too).
  std::error_code ec;
  for (fs::directory_iterator it("/etc/ld.so.conf.d", ec), end; !ec && it != end; it.increment(ec)) {
    std::ifstream conf(it->path());
    for (std::string line; std::getline(conf, line);)
      if (line = trim(line); !line.empty() && line[0] == '/') dirs.push_back(line);
  }
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib64"})
    dirs.push_back(d);
  return dirs;
}

std::string read_efa_installer_version(const std::string& efa_installed_packages) {
  std::ifstream in(efa_installed_packages);
  constexpr std::string_view kLine = "# EFA installer version:";
  for (std::string line; std::getline(in, line);)
    if (line.rfind(kLine, 0) == 0) return trim(line.substr(kLine.size()));
  return "";
}

std::string mount_type(const std::string& mount_point, const std::string& proc_mounts) {
  std::ifstream in(proc_mounts);
  std::string type;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string device, point, fstype;
    if (fields >> device >> point >> fstype && point == mount_point) type = fstype;  // the last mount wins
  }
  return type;
}

report::RankEnv collect_local_env(int rank, const CollectOptions& options) {
  report::RankEnv e;
  e.rank = rank;
  e.host = this_host();
  e.instance_type = read_instance_type(options.dmi_product_name);
  add_library_versions(e.versions);
  const std::string packages = !options.efa_installed_packages.empty()
                                   ? options.efa_installed_packages
                                   : env_or("COLLBENCH_EFA_INSTALLED_PACKAGES", "/opt/amazon/efa_installed_packages");
  if (auto v = read_efa_installer_version(packages); !v.empty()) e.versions["efa_installer"] = v;
  e.env = relevant_env();
  const auto plugin = e.env.find("NCCL_NET_PLUGIN");
  e.ofi_plugin = find_ofi_plugin(plugin == e.env.end() ? "" : plugin->second, plugin_search_dirs());
  e.memlock_kb = limit_kb(RLIMIT_MEMLOCK);
  e.stack_kb = limit_kb(RLIMIT_STACK);

  struct statvfs sv {};
  if (statvfs(options.shm_dir.c_str(), &sv) == 0)
    e.shm_bytes = static_cast<std::uint64_t>(sv.f_blocks) * static_cast<std::uint64_t>(sv.f_frsize);
  e.shm_type = mount_type(options.shm_dir, options.proc_mounts);

  int expected = options.expected_efa_devices;
  if (expected <= 0 && report::efa_capable(e.instance_type)) expected = 1;
  e.efa_devices = count_efa_devices(options.infiniband_dir);
  for (int attempt = 0; attempt < options.efa_retries && e.efa_devices < expected; ++attempt) {
    std::this_thread::sleep_for(options.efa_retry_interval);
    e.efa_devices = count_efa_devices(options.infiniband_dir);
  }
  const GpuProbe gpus = visible_gpus(options.dev_dir);
  e.gpus_visible = gpus.count;
  if (gpu_unusable(gpus)) e.gpu_error = gpus.cuda_error;
  return e;
}

std::vector<report::RankEnv> gather_env(Control& control, const report::RankEnv& mine) {
  const auto parts = control.gather_strings(report::to_json(mine).dump());
  if (parts.empty()) return {mine};
  std::vector<report::RankEnv> all;
  for (const auto& part : parts) all.push_back(report::rank_env_from_json(nlohmann::json::parse(part)));
  return all;
}

}  // namespace collbench
