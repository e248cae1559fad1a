// A simulated training job's NCCL Inspector logs, written as the plugin writes them (one compact
// JSON object per line, one file per process named <host>-pid<pid>.log), for the reader's and the
// rules' tests. Timing follows a ring: a collective takes alpha + factor * bytes / busbw once the
// last rank arrives, and each rank reports that plus its wait for the last one.
#pragma once

#include <cstdint>
#include <string>

namespace collbench::inspector_sim {

enum class Fault { None, LateRank, SlowNode, Hang, SlowLink, Drift };

struct JobSpec {
  int hosts = 2;
  int gpus = 4;              // ranks per host; ranks = hosts * gpus
  int collectives = 200;     // per communicator
  double interval_s = 1.0;   // between training steps (one collective per communicator each)
  Fault fault = Fault::None;
  int fault_rank = 5;        // LateRank, Hang: the global rank
  int fault_host = 1;        // SlowNode: the host index; SlowLink: one end
  int link_host = 2;         // SlowLink: the other end (communicators holding both hosts run slow)
  double late_share = 0.3;   // LateRank: its delay, as a share of the collective's own time
  double slow_share = 0.5;   // SlowNode: its communicators' bandwidth, as a share of the healthy one
  int hang_after = 100;      // Hang: the last coll_sn of the hung rank's communicators
  double drift_share = 0.3;  // Drift: every communicator's bandwidth lost by the end of the job
  bool drift_step = false;   // Drift: all of it at once halfway (else linearly over the job)
  int drift_host = -1;       // Drift: only the communicators holding this host index (-1: all of them)
  bool pairs = false;        // also one AllReduce communicator per ring neighbour pair of hosts (3+ hosts)
  std::uint64_t world_bytes = 64ull << 20;  // the world communicator's AllReduce size
  double world_gbs = 0;      // its healthy busbw; 0: 40 GB/s across hosts, 200 on one
  double noise = 0.02;       // step-to-step noise of a collective's own time (a normal's sigma, as a share)
  std::uint64_t seed = 1;
  std::uint64_t comm_id_base = 0x7f8c496ae9f661ull;  // another job's communicators: another base
  std::string version = "v4.0";
  bool truncate_last = false;  // cut the last line of the first file in half (still being written)
};

// One record as the plugin writes it (inspector_json.cc: header, metadata, coll_perf; no newline).
struct Line {
  std::string comm_id;
  int rank = 0, n_ranks = 0, nnodes = 0;
  std::string version = "v4.0";
  std::uint64_t dump_ts_us = 0;
  std::string hostname;
  std::uint64_t pid = 0;
  std::string coll;
  std::uint64_t sn = 0, bytes = 0, exec_us = 0;
  double algbw_gbs = 0, busbw_gbs = 0;
};
std::string format_line(const Line& l);

std::string host_name(int host);  // "node-003"

// Writes the job into `dir` (created if missing); returns the number of records written.
std::uint64_t write_job(const JobSpec& spec, const std::string& dir);

}  // namespace collbench::inspector_sim
