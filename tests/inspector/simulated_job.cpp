#include "tests/inspector/simulated_job.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

namespace collbench::inspector_sim {

namespace {

// Key order and number formats as the plugin's: integers plain, bandwidths "%lf".
void append_line(fmt::memory_buffer& out, const Line& l) {
  fmt::format_to(
      std::back_inserter(out),
      "{{\"header\":{{\"id\":\"{}\",\"rank\":{},\"n_ranks\":{},\"nnodes\":{}}},\"metadata\":{{"
      "\"inspector_output_format_version\":\"{}\",\"git_rev\":\"\",\"rec_mechanism\":\"nccl_profiler_interface\","
      "\"dump_timestamp_us\":{},\"hostname\":\"{}\",\"pid\":{}}},\"coll_perf\":{{\"coll\":\"{}\",\"coll_sn\":{},"
      "\"coll_msg_size_bytes\":{},\"coll_exec_time_us\":{},\"coll_timing_source\":\"kernel_gpu\","
      "\"coll_algobw_gbs\":{:.6f},\"coll_busbw_gbs\":{:.6f}}}}}",
      l.comm_id, l.rank, l.n_ranks, l.nnodes, l.version, l.dump_ts_us, l.hostname, l.pid, l.coll, l.sn, l.bytes,
      l.exec_us, l.algbw_gbs, l.busbw_gbs);
}

}  // namespace

std::string format_line(const Line& l) {
  fmt::memory_buffer out;
  append_line(out, l);
  return fmt::to_string(out);
}

std::string host_name(int host) { return fmt::format("node-{:03d}", host); }

namespace {

struct Comm {
  std::string id;
  std::vector<int> members;  // global ranks, in comm rank order
  int nnodes = 0;
  std::string coll;
  std::uint64_t bytes = 0;
  double busbw_gbs = 0;  // healthy
};

double factor(const std::string& coll, int n) {
  return coll == "AllReduce" ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
}

}  // namespace

std::uint64_t write_job(const JobSpec& spec, const std::string& dir) {
  const int ranks = spec.hosts * spec.gpus;
  auto host_of = [&](int r) { return r / spec.gpus; };
  std::vector<Comm> comms;
  std::uint64_t next_id = spec.comm_id_base;  // comm hashes look like the README's
  auto add = [&](std::vector<int> m, int nnodes, std::string coll, std::uint64_t bytes, double bw) {
    comms.push_back({fmt::format("0x{:x}", next_id), std::move(m), nnodes, std::move(coll), bytes, bw});
    next_id += 0x1000193ull * 7919;
  };
  std::vector<int> world(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) world[static_cast<std::size_t>(r)] = r;
  add(world, spec.hosts, "AllReduce", spec.world_bytes,
      spec.world_gbs > 0 ? spec.world_gbs : spec.hosts > 1 ? 40.0 : 200.0);
  if (spec.hosts > 1)
    for (int g = 0; g < spec.gpus; ++g) {  // data parallel: one rank per host
      std::vector<int> m;
      for (int h = 0; h < spec.hosts; ++h) m.push_back(h * spec.gpus + g);
      add(m, spec.hosts, "ReduceScatter", 32ull << 20, 40.0);
    }
  if (spec.pairs && spec.hosts >= 3)
    for (int h = 0; h < spec.hosts; ++h) {  // pipeline neighbours: a host's GPUs and the next host's
      std::vector<int> m;
      for (int e : {h, (h + 1) % spec.hosts})
        for (int g = 0; g < spec.gpus; ++g) m.push_back(e * spec.gpus + g);
      add(m, 2, "AllReduce", 128ull << 20, 40.0);
    }
  for (int h = 0; h < spec.hosts; ++h) {  // tensor parallel: a host's GPUs
    std::vector<int> m;
    for (int g = 0; g < spec.gpus; ++g) m.push_back(h * spec.gpus + g);
    add(m, 1, "AllGather", 16ull << 20, 200.0);
  }

  std::filesystem::create_directories(dir);
  std::vector<std::FILE*> files(static_cast<std::size_t>(ranks));
  std::vector<std::string> paths(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    paths[static_cast<std::size_t>(r)] =
        fmt::format("{}/{}-pid{}.log", dir, host_name(host_of(r)), 4000 + r % spec.gpus);
    files[static_cast<std::size_t>(r)] = std::fopen(paths[static_cast<std::size_t>(r)].c_str(), "w");
    if (!files[static_cast<std::size_t>(r)]) throw std::runtime_error("cannot write " + paths[static_cast<std::size_t>(r)]);
    // Large buffers and one reused line buffer: a scale run writes tens of GB.
    std::setvbuf(files[static_cast<std::size_t>(r)], nullptr, _IOFBF, 64u << 10);
  }
  fmt::memory_buffer text;
  std::mt19937_64 rng(spec.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> noise(0.0, 1.0);
  const std::uint64_t t0 = 1765000000000000ull;  // December 2025, in microseconds
  std::uint64_t written = 0;
  Line l;
  l.version = spec.version;
  for (int step = 0; step < spec.collectives; ++step) {
    const double start_us = static_cast<double>(t0) + step * spec.interval_s * 1e6;
    for (const auto& c : comms) {
      const int n = static_cast<int>(c.members.size());
      const bool has = [&](int r) { return std::find(c.members.begin(), c.members.end(), r) != c.members.end(); }(
          spec.fault_rank);
      if (spec.fault == Fault::Hang && has && step + 1 > spec.hang_after) continue;
      double bw = c.busbw_gbs;
      if (spec.fault == Fault::SlowNode &&
          std::any_of(c.members.begin(), c.members.end(), [&](int r) { return host_of(r) == spec.fault_host; }))
        bw *= spec.slow_share;
      auto holds = [&](int host) {
        return std::any_of(c.members.begin(), c.members.end(), [&](int r) { return host_of(r) == host; });
      };
      if (spec.fault == Fault::SlowLink && holds(spec.fault_host) && holds(spec.link_host)) bw *= spec.slow_share;
      if (spec.fault == Fault::Drift && (spec.drift_host < 0 || holds(spec.drift_host))) {
        const double progress =
            spec.drift_step ? (2 * step >= spec.collectives ? 1.0 : 0.0)
                            : static_cast<double>(step) / std::max(1, spec.collectives - 1);
        bw *= 1 - spec.drift_share * progress;
      }
      const double f = factor(c.coll, n);
      // The collective's own time once everyone is in, with a little step-to-step noise.
      const double own_us = (20.0 + f * static_cast<double>(c.bytes) / (bw * 1e3)) * std::max(0.2, 1 + spec.noise * noise(rng));
      std::vector<double> arrive(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) {
        arrive[static_cast<std::size_t>(i)] = 0.02 * own_us * unit(rng);  // launch skew: 2% of the time
        if (spec.fault == Fault::LateRank && c.members[static_cast<std::size_t>(i)] == spec.fault_rank)
          arrive[static_cast<std::size_t>(i)] += spec.late_share * own_us;
      }
      const double last = *std::max_element(arrive.begin(), arrive.end());
      for (int i = 0; i < n; ++i) {
        const int r = c.members[static_cast<std::size_t>(i)];
        const double exec = own_us + last - arrive[static_cast<std::size_t>(i)];
        l.comm_id = c.id;
        l.rank = i;
        l.n_ranks = n;
        l.nnodes = c.nnodes;
        l.exec_us = static_cast<std::uint64_t>(std::max(1.0, exec));
        l.dump_ts_us = static_cast<std::uint64_t>(start_us + arrive[static_cast<std::size_t>(i)] + exec + 250);
        l.hostname = host_name(host_of(r));
        l.pid = static_cast<std::uint64_t>(4000 + r % spec.gpus);
        l.coll = c.coll;
        l.sn = static_cast<std::uint64_t>(step + 1);
        l.bytes = c.bytes;
        l.algbw_gbs = static_cast<double>(c.bytes) / (static_cast<double>(l.exec_us) * 1e3);
        l.busbw_gbs = l.algbw_gbs * f;
        text.clear();
        append_line(text, l);
        text.push_back('\n');
        std::fwrite(text.data(), 1, text.size(), files[static_cast<std::size_t>(r)]);
        ++written;
      }
    }
  }
  for (auto* f : files) std::fclose(f);
  if (spec.truncate_last) {  // the first file's last line, half written
    const auto size = std::filesystem::file_size(paths[0]);
    std::filesystem::resize_file(paths[0], size - 120);
  }
  return written;
}

}  // namespace collbench::inspector_sim
