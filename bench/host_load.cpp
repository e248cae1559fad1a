#include "bench/host_load.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace collbench {

std::optional<int> procs_running(std::string_view text) {
  constexpr std::string_view key = "procs_running ";
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    if (line.substr(0, key.size()) == key) {
      int n = 0;
      const auto digits = line.substr(key.size());
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
      if (ec != std::errc{} || p != digits.data() + digits.size() || n < 0) return std::nullopt;
      return n;
    }
    at = end + 1;
  }
  return std::nullopt;
}

double runnable_per_core() {
  std::ifstream in("/proc/stat");
  std::stringstream text;
  text << in.rdbuf();
  const auto running = procs_running(text.str());
  const int cores = online_cores();
  if (!running || cores <= 0) return 0;
  return static_cast<double>(*running) / static_cast<double>(cores);
}

std::optional<double> runqueue_wait_s(std::string_view schedstat) {
  std::istringstream in{std::string(schedstat)};
  unsigned long long on_cpu = 0, waited = 0;
  if (!(in >> on_cpu >> waited)) return std::nullopt;
  return static_cast<double>(waited) * 1e-9;
}

std::optional<double> runqueue_wait_s() {
  std::ifstream in("/proc/self/schedstat");
  std::stringstream text;
  text << in.rdbuf();
  return runqueue_wait_s(text.str());
}

double cpu_wait_share(std::optional<double> wait0_s, std::optional<double> wait1_s, double wall_s) {
  if (!wait0_s || !wait1_s || !(wall_s > 0)) return -1;
  return std::clamp((*wait1_s - *wait0_s) / wall_s, 0.0, 1.0);
}

void CpuWaitMeter::start() {
  t0_ = std::chrono::steady_clock::now();
  wait0_ = read_();
}

double CpuWaitMeter::stop() {
  const std::optional<double> wait1 = read_();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  return cpu_wait_share(wait0_, wait1, wall);
}

int online_cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 0;
}

std::string machine_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  if (in >> id && !id.empty()) return id;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace collbench
