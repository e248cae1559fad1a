// Per-instance-type bandwidth thresholds (busbw) and the hardware profile the audit compares with.
// Loaded strictly from thresholds/<instance-type>.json (format: thresholds/README.md): a typo, a
// wrong type, an unknown key, a negative number or warn below fail is refused, never ignored.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/core/json_input.h"

namespace collbench::report {

struct HardwareProfile {
  int gpus = 0;
  std::string gpu;         // "H100 80GB"
  int efa_devices = 0;     // 0: no EFA on this type
  double efa_gbps = 0;     // total EFA bandwidth
  std::string source;      // where these facts come from
};

struct ThresholdRow {
  std::string op;          // all_reduce, all_to_all, ...
  std::string scope;       // node (one node) or world
  int min_nodes = 1;       // world rows: the node counts the row applies to
  int max_nodes = 0;       // 0: no upper bound
  std::uint64_t bytes = 0; // message size the row is judged at
  double fail_below = 0;   // busbw GB/s
  double warn_below = 0;
  std::string basis;       // "published" or "derived"
  std::string source;      // URL, or the derivation
};

struct InstanceThresholds {
  std::string instance_type;
  std::string file;
  HardwareProfile hardware;
  std::vector<ThresholdRow> rows;
};

// Bad thresholds input: names the file, the key and the fix. The one input error every reader
// throws (reports/core/json_input.h); the command line maps it to exit code 2.
using ThresholdError = InputError;

InstanceThresholds load_thresholds_file(const std::string& path);
// thresholds/<instance_type>.json in `dir`, or nullopt when there is none.
std::optional<InstanceThresholds> find_thresholds(const std::string& dir, const std::string& instance_type);

// The instance types with a profile (<type>.json) in `dir`, sorted (known-issues.json is not one).
std::vector<std::string> profile_names(const std::string& dir);

}  // namespace collbench::report
