// The result model of `collbench fabric`: the provider it ran on, per pair and lane the latency and
// bandwidth at every size, and the run's layout. Filled by the launcher from the raw samples of
// bench/ofi; read by the fabric printers, the JSON writer and the verdicts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench::report {

struct FabricProvider {
  std::string requested;  // --provider: "auto" or a name
  std::string name;       // fi_info prov_name, e.g. "tcp;ofi_rxm"
  std::string core;       // "tcp"
  bool over_ip = false;   // the core provider rides the kernel's IP stack (tcp, sockets, udp, net)
  std::string reason;     // how it was chosen
  bool fell_back = false; // auto found no efa
  std::string fabric, domain;
  std::string libfabric;  // fi_version(), "1.17"
  std::string messaging;  // "tagged" or "msg"
  bool mr_local = false;
  std::uint64_t max_msg_size = 0;
  std::uint64_t inject_size = 0;  // sends up to this size go out with fi_inject
  std::string polling;            // "spin" or "yield" (bench/ofi/endpoint.h), "mixed" when machines differ
  std::string polling_reason;     // e.g. "2 ranks on 2 cores"
};

struct LatencyPoint {
  std::uint64_t bytes = 0;
  double median_us = 0, p99_us = 0, min_us = 0, mean_us = 0;
  std::size_t samples = 0;
  std::vector<double> samples_us;  // kept for attribution; not printed
};

struct BandwidthPoint {
  std::uint64_t bytes = 0;
  int window = 0;
  // Medians over iterations; bidirectional is the sum of both directions.
  double a_to_b_gbs = 0, b_to_a_gbs = 0, bidir_gbs = 0;
  std::size_t samples = 0;
  std::vector<double> uni_gbs;  // both directions' per-iteration GB/s, for attribution
};

struct FabricLane {
  int lane = 0;
  int rank_a = 0, rank_b = 0;
  std::vector<LatencyPoint> latency;
  std::vector<BandwidthPoint> bandwidth;
  // The size whose measurement ran out of its time share before its warm-up and minimum samples;
  // larger sizes of that kind were skipped on this lane. 0: none.
  std::uint64_t latency_starved_at = 0, bandwidth_starved_at = 0;
};

struct FabricPair {
  int round = 0;
  int a = 0, b = 0;  // unit indices
  std::vector<FabricLane> lanes;
};

struct FabricUnit {
  std::string name;
  std::vector<int> ranks;
};

struct FabricOptionsUsed {
  std::uint64_t min_bytes = 0, max_bytes = 0;
  double factor = 2;
  std::uint64_t latency_max = 0, bandwidth_min = 0;
  int iters = 0, warmup = 0, bw_iters = 0, bw_warmup = 0, window = 0;
  double timeout_s = 0;
};

struct FabricRun {
  std::string tool_version, started_at;
  std::vector<std::string> argv;
  FabricOptionsUsed options;
  std::string instance_type;           // as judged; empty when unknown
  std::vector<std::pair<std::string, int>> efa_devices;  // per node: EFA devices seen
  FabricProvider provider;
  int ranks = 0;
  std::vector<FabricUnit> nodes;  // hosts, in order of their lowest rank
  std::vector<double> runnable_per_core;  // per node, the busiest its CPUs were around the rounds
  std::vector<FabricUnit> units;  // what the schedule pairs: the nodes, or ranks on a one-node run
  bool per_rank = false;          // units are ranks
  std::string pattern;
  std::vector<std::vector<std::pair<int, int>>> rounds;  // the schedule's, then the confirmation's
  int main_rounds = -1;  // rounds from this index on are confirmation; -1: none were planned
  double budget_s = 0;
  std::vector<std::pair<int, int>> not_measured;  // unit pairs of rounds the budget did not reach
  std::vector<FabricPair> pairs;
  std::uint64_t latency_bytes = 0;    // the size the latency verdicts use (0: none measured)
  std::uint64_t bandwidth_bytes = 0;  // the size the bandwidth verdicts use (0: none measured)
};

}  // namespace collbench::report
