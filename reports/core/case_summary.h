// From one case's raw samples to its typed result: rank reduction, statistics, bandwidth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/result.h"
#include "reports/core/stats.h"

namespace collbench::report {

struct RawCase {
  std::string op, dtype, redop;
  Placement placement = Placement::OutOfPlace;
  int root = -1;
  std::uint64_t bytes = 0, count = 0, requested_bytes = 0;
  double busbw_factor = 1;
  const std::vector<std::vector<double>>* samples_s = nullptr;  // [rank][iteration], seconds
  std::optional<std::int64_t> wrong;
  std::string stop_reason;
  double cpu_wait_share = -1;  // CaseMeasurement::cpu_wait_share
};

CaseResult summarize_case(const RawCase& raw, RankReduce how, const std::vector<NodeInfo>& nodes);

}  // namespace collbench::report
