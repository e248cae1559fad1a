// Picks and builds the backend: --backend auto|nccl|mpi.
#pragma once

#include <memory>
#include <string>

#include "bench/backend.h"
#include "bench/options.h"

namespace collbench {

struct BackendChoice {
  std::unique_ptr<Backend> backend;
  std::string reason;  // why this one, printed in the header ("auto: no GPU visible")
};

// Throws RunError when the requested backend cannot run here (no GPU, built without NCCL).
BackendChoice make_backend(const RunOptions& opts);

bool built_with_nccl();

}  // namespace collbench
