// Host twins of the device fill/verify kernels, over the shared pattern in kernels/pattern.h.
#pragma once

#include <cstdint>

#include "kernels/pattern.h"

namespace collbench {

// dst[i] = input_value(spec, i), i < count.
void host_fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec);
// dst[i] = v for every i < count (the poison written into outputs before a checked call).
void host_fill_value(DType t, void* dst, std::uint64_t count, int v);
// Elements i < count whose bits differ from expected_value(spec, i).
std::int64_t host_count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec);

}  // namespace collbench
