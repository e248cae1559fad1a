#include "launcher/probes/efa_counters.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "bench/mpi_check.h"
#include "launcher/probes/env_collect.h"

namespace collbench {
namespace {

namespace fs = std::filesystem;

// hw_counters/lifespan is how long the kernel caches the values (ms), not a counter.
constexpr const char* kNotCounters[] = {"lifespan"};

bool read_number(const fs::path& file, std::uint64_t* out) {
  std::ifstream in(file);
  std::string text;
  if (!in || !std::getline(in, text)) return false;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

void read_dir(const fs::path& dir, const std::string& device, int port, report::CounterSnapshot& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  report::CounterSet set{device, port, {}};
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (std::find(std::begin(kNotCounters), std::end(kNotCounters), name) != std::end(kNotCounters)) continue;
    std::uint64_t v = 0;
    if (read_number(it->path(), &v)) set.values[name] = v;
  }
  out.push_back(std::move(set));
}

}  // namespace

CounterReadOptions CounterReadOptions::from_env() {
  CounterReadOptions o;
  if (const char* root = std::getenv("COLLBENCH_SYSFS_ROOT"); root && *root) o.sysfs_root = root;
  return o;
}

std::string CounterReadOptions::infiniband_dir() const {
  return (fs::path(sysfs_root) / "sys/class/infiniband").string();
}

report::CounterSnapshot read_efa_counters(const std::string& infiniband_dir) {
  report::CounterSnapshot out;
  std::error_code ec;
  for (fs::directory_iterator it(infiniband_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!is_efa_device(it->path().string())) continue;
    const std::string device = it->path().filename().string();
    read_dir(it->path() / "hw_counters", device, 0, out);
    std::error_code port_ec;
    for (fs::directory_iterator p(it->path() / "ports", port_ec), pend; !port_ec && p != pend; p.increment(port_ec)) {
      int port = 0;
      const std::string name = p->path().filename().string();
      const auto [last, perr] = std::from_chars(name.data(), name.data() + name.size(), port);
      if (perr == std::errc{} && last == name.data() + name.size() && port > 0)
        read_dir(p->path() / "hw_counters", device, port, out);
    }
  }
  return out;
}

EfaCounterWatch::EfaCounterWatch(Control& control, CounterReadOptions options)
    : options_(std::move(options)), hosts_(control.all_gather_strings(this_host())) {
  const auto me = static_cast<std::size_t>(control.rank());
  reader_ = std::find(hosts_.begin(), hosts_.end(), hosts_[me]) == hosts_.begin() + static_cast<std::ptrdiff_t>(me);
  if (!reader_) return;
  devices_ = count_efa_devices(options_.infiniband_dir());
  if (devices_ > 0) before_ = read_efa_counters(options_.infiniband_dir());
}

report::CounterReport EfaCounterWatch::finish(Control& control) const {
  std::string mine;
  if (reader_) {
    const std::string& host = hosts_[static_cast<std::size_t>(control.rank())];
    const report::CounterSnapshot after = devices_ > 0 ? read_efa_counters(options_.infiniband_dir()) : report::CounterSnapshot{};
    mine = report::node_counters_json(host, devices_, report::counter_deltas(host, before_, after)).dump();
  }
  const std::vector<std::string> parts = control.gather_strings(mine);
  if (control.rank() != 0) return {};
  return report::merge_node_counters(parts, hosts_);
}

}  // namespace collbench
