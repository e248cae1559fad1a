// Shared by the nccl backend's files.
#pragma once

#include <nccl.h>

#include "bench/cuda_check.h"

namespace collbench {

// Runs f between ncclGroupStart and ncclGroupEnd, closing the group even when f throws.
template <class F>
inline ncclResult_t grouped(F&& f) {
  NCCL_CHECK(ncclGroupStart());
  try {
    f();
  } catch (...) {
    ncclGroupEnd();
    throw;
  }
  return NCCL_CHECK(ncclGroupEnd());
}

}  // namespace collbench
