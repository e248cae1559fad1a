// The shape of a busbw curve: a size, or a run of up to three sizes, far below the curve through its
// neighbours and below a smaller size, in every placement measured. Bandwidth grows with size until
// it saturates, so such a dip is a protocol or algorithm switch gone wrong (a bisected NCCL
// regression lost 55-58% at 700 KB-1 MB), not noise, which in-place and out-of-place do not share.
#pragma once

#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

struct CurveRule {
  double min_drop = 0.25;       // below the curve through the neighbours by at least this fraction
  double noise_factor = 4;      // and by this many times the table's own in-place/out-of-place spread
  // Neighbours at or above both: past the smallest, latency-bound sizes, and ten times the 0.01 GB/s
  // that nccl-tests prints.
  double min_share_of_peak = 0.005;
  double min_gbs = 0.1;
  int max_run = 3;
};

// CURVE_DIP (WARN P1), one per op/datatype/group with a dip, naming the sizes and the depth both
// placements agree on (the shallower). For GPU results: a
// host's memcpy curve has cache cliffs (a 2-rank mpi-backend run here fell 58% at 32-128 MiB in
// one run of three), so the mpi backend's runs are not held to it (curve_rule_applies).
std::vector<Finding> curve_dip_findings(const std::vector<CaseResult>& cases, const CurveRule& rule = {});

// Whether a run of this backend is held to the curve rule: every backend but mpi, and results
// collbench did not measure (backend empty).
bool curve_rule_applies(const std::string& backend);

}  // namespace collbench::report
