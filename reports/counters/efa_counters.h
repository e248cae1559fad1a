// EFA hardware counters around a phase: which counters are errors and which are traffic, the
// per-node, per-device deltas between two readings, and their place in the JSON documents
// (`counters`). Reading sysfs is the launcher's (launcher/probes/efa_counters.h); this is values only.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::report {

// Error: a rise means the fabric or the device misbehaved during the phase. Traffic: a rise is
// the phase's own (and any other job's) work.
enum class CounterKind { Traffic, Error };

struct EfaCounterInfo {
  std::string_view name;  // the file name under hw_counters/
  CounterKind kind;
};

// Every counter the efa driver exposes that collbench knows, port and device-wide alike.
std::span<const EfaCounterInfo> efa_counter_table();
// Error or Traffic from the table; a counter it does not know is Traffic (reported, not judged).
CounterKind counter_kind(std::string_view name);

// One hw_counters directory read once: <dev>/ports/<port>/hw_counters, or <dev>/hw_counters
// (port 0, the device-wide counters).
struct CounterSet {
  std::string device;
  int port = 0;
  std::map<std::string, std::uint64_t> values;
};
using CounterSnapshot = std::vector<CounterSet>;

// What changed in one directory over a phase. A counter that went backwards (a driver reload, a
// device reset) has no delta: it is listed in `reset`.
struct CounterDelta {
  std::string host;
  std::string device;
  int port = 0;  // 0: device-wide
  std::map<std::string, std::uint64_t> deltas;
  std::vector<std::string> reset;
};

// Every node's deltas for one phase, on rank 0.
struct CounterReport {
  std::vector<std::string> hosts;  // the hosts read, in order of their lowest rank
  std::map<std::string, std::vector<int>> ranks;  // each host's ranks, for subjects
  int devices = 0;  // EFA devices over all hosts
  std::vector<CounterDelta> entries;
};

// The deltas of every directory present in both snapshots (counters present in both).
std::vector<CounterDelta> counter_deltas(const std::string& host, const CounterSnapshot& before,
                                         const CounterSnapshot& after);

// One node's part, as its reader sends it to rank 0: {"host", "devices", "entries"}.
nlohmann::json node_counters_json(const std::string& host, int devices, const std::vector<CounterDelta>& entries);
// Rank 0: the nodes' parts (empty strings, from processes that read nothing, are skipped) and
// every process's host by rank. Throws nlohmann::json::exception on a malformed part.
CounterReport merge_node_counters(const std::vector<std::string>& parts, const std::vector<std::string>& host_of_rank);

// The document's `counters`: {"devices": N} alone when no node has an EFA device; else also
// "hosts" and "entries": [{host, device, port (null: device-wide), deltas: {name: n}, reset: [...]}].
nlohmann::json counters_json(const CounterReport& report);

}  // namespace collbench::report
