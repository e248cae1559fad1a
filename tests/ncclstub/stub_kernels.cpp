// The device fill/verify launchers (kernels/fill_verify.h) on the stand-in's host memory: the host
// twins of bench/host_pattern.h, which compute the same pattern bit for bit. Each buffer must lie in
// one allocation of the current device, as a kernel's would.
#include <fmt/format.h>

#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/host_pattern.h"
#include "kernels/fill_verify.h"
#include "tests/ncclstub/stub_state.h"

namespace collbench::device {
namespace {

void check_range(const char* what, const void* p, DType t, std::uint64_t count) {
  const std::uint64_t bytes = count * dtype_info(t).size;
  const ncclstub::Allocation* a = ncclstub::find_allocation(p, bytes);
  if (a == nullptr || a->device != ncclstub::state().device)
    throw RunError(fmt::format("NCCL stub: {} of {} bytes at {} is outside every allocation of device {}", what, bytes,
                               p, ncclstub::state().device));
}

}  // namespace

void fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec, void*) {
  if (count == 0) return;
  check_range("fill_input", dst, t, count);
  host_fill_input(t, dst, count, spec);
}

void fill_value(DType t, void* dst, std::uint64_t count, int v, void*) {
  if (count == 0) return;
  check_range("fill_value", dst, t, count);
  host_fill_value(t, dst, count, v);
}

std::int64_t count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec, void*) {
  if (count == 0) return 0;
  check_range("count_wrong", src, t, count);
  return host_count_wrong(t, src, count, spec);
}

}  // namespace collbench::device
