// The result model: what a run measured, as typed values. Renderers read it; nothing here measures.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/case_kinds.h"
#include "common/rank_reduce.h"

namespace collbench::report {

inline constexpr const char* kRunSchema = "collbench.run/1";

struct NodeInfo {
  std::string name;
  std::vector<int> ranks;  // global rank numbers
};

struct RankInfo {
  int rank = 0;
  int pid = 0;
  std::string host;
  int device = -1;
  std::string bus_id;
  std::string device_name;
  std::string machine;  // the kernel's boot id (bench/host_load.h machine_id): ranks that share it share CPUs
  int cores = 0;        // online cores of that machine; 0 unknown
};

struct WorldInfo {
  int ranks = 0;
  int processes = 0;
  int gpus_per_process = 1;
  std::vector<NodeInfo> nodes;
  std::vector<RankInfo> rank_info;
  std::string backend;
  std::string backend_reason;
  std::string instance_type;  // empty when unknown
  std::map<std::string, std::string> versions;
};

// Sweep parameters echoed in nccl-tests' first header line.
struct SweepInfo {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  double factor = 2;
  std::uint64_t step_bytes = 0;
  int warmup = 0;
  std::string iters;  // "20" or "auto"
  int check_iters = 1;
  int graph_calls = 0;  // -G: calls captured in one CUDA graph per timed launch (0: none)
};

struct RunHeader {
  std::string tool_version;
  std::string started_at;  // ISO 8601 UTC
  std::vector<std::string> argv;
  WorldInfo world;
  SweepInfo sweep;
  RankReduce rank_reduce = RankReduce::Mean;
  std::vector<std::string> notes;
};

struct TimeStats {  // microseconds
  double median = 0, mean = 0, min = 0, max = 0, p99 = 0, stdev = 0;
  std::size_t samples = 0;
  double mad = 0;  // 1.4826 x the median absolute deviation: the spread of the bulk, blind to a few spikes
};

struct GroupInfo {
  Scope scope = Scope::World;
  int id = 0;
  std::vector<int> ranks;
};

struct NodeMedian {
  std::string node;
  double median_us = 0;
};

// Who reached the collective last in a case's timed iterations (reports/run/arrival.h).
struct CaseArrival {
  int rank = -1;  // global rank the others waited for longest; -1: nobody came late
  std::string host;
  std::size_t iterations = 0;  // iterations compared
  std::size_t late = 0;        // iterations in which the last rank came late (beyond the bound)
  std::size_t last = 0;        // ... of which `rank` was the late one
  double median_lateness_us = 0;  // over those `last` iterations
  double wait_share = 0;          // `rank`'s share of all the lateness in the case, 0..1
  double wait_fraction = 0;       // the others' wait for `rank` over the timed loop's span, 0..1
  double clock_error_us = 0;      // the largest error bound of the clock offsets
};

struct CaseResult {
  std::string op, dtype, redop;  // redop "none" for ops that do not reduce
  Placement placement = Placement::OutOfPlace;
  int root = -1;
  std::uint64_t bytes = 0, count = 0, requested_bytes = 0;
  GroupInfo group;
  TimeStats time_us;  // per-iteration times after the rank reduction
  double algbw_gbs = 0, busbw_gbs = 0;  // from the mean time, as nccl-tests
  std::optional<std::int64_t> wrong;    // nullopt: not checked (N/A)
  std::vector<int> wrong_ranks;         // ranks whose process counted wrong elements; empty: not known
  std::string stop_reason;
  double cpu_wait_share = -1;           // largest share of the timed loop a process waited for a CPU; < 0 unknown
  std::vector<double> rank_median_us;   // indexed by rank
  std::vector<NodeMedian> node_median_us;
  std::optional<CaseArrival> arrival;  // nullopt: not measured (backend, or one rank)
};

struct RunOutcome {
  bool complete = true;
  std::string error;  // why the run ended early
  std::int64_t wrong_total = 0;
  int exit_code = 0;
};

}  // namespace collbench::report
