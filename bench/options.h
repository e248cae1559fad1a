// Everything a run is asked to do, parsed once by the launcher and passed down by value.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/case_kinds.h"
#include "common/rank_reduce.h"
#include "kernels/types.h"

namespace collbench {

enum class BackendKind : std::uint8_t { Auto, Nccl, Mpi };

// How many timed iterations per case: a fixed count, or adaptive (stop when the relative standard
// error of the mean falls under max_noise, after min_samples and min_time, or at max_time, or at
// max_samples when that is set).
struct IterPolicy {
  bool adaptive = false;
  int fixed = 20;
  int min_samples = 10;
  double min_time_s = 0.01;
  double max_time_s = 2.0;
  double max_noise = 0.01;
  int max_samples = 0;  // adaptive only; 0: no count limit
};

// Test-only faults, so the end-to-end tests can prove that wrong results, hangs and dead ranks
// are caught. Never set in normal use (hidden option --inject).
struct FaultInjection {
  // Setup: the process of that rank fails backend set-up (between the set-up collectives).
  enum class Kind : std::uint8_t { None, Corrupt, Hang, Kill, Setup } kind = Kind::None;
  int rank = -1;
  int at_case = 0;  // index of the case (op × dtype × size × placement) where it strikes
};

struct RunOptions {
  std::vector<Coll> ops{Coll::AllReduce, Coll::AllToAll};
  std::vector<DType> dtypes{DType::Float};
  RedOp redop = RedOp::Sum;
  int root = 0;
  std::uint64_t min_bytes = 8;
  std::uint64_t max_bytes = 256ull << 20;
  double factor = 2.0;          // used when step_bytes == 0
  std::uint64_t step_bytes = 0;  // -i
  std::vector<Placement> placements{Placement::OutOfPlace, Placement::InPlace};
  int warmup = 5;
  IterPolicy iters;
  int check_iters = 1;
  RankReduce rank_reduce = RankReduce::Mean;
  BackendKind backend = BackendKind::Auto;
  int gpus = 1;  // -g: GPUs driven by each process (nccl)
  int graph_calls = 0;  // -G: calls captured in one CUDA graph, each launch one timed sample (nccl); 0: none
  Scope scope = Scope::World;
  double timeout_s = 300.0;
  // Each op's sizes stop when this much wall time has gone to the op (rank 0's clock); the sizes
  // left are reported as not measured. 0: no limit. Set by preflight from its budget.
  double op_budget_s = 0;
  std::string json_path;
  bool progress = true;  // on stderr, and only when it is a terminal
  FaultInjection inject;
};

}  // namespace collbench
