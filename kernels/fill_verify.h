// Host-callable launchers of the device fill/verify kernels (kernels/fill_verify.cu).
//
// Plain C++: no CUDA types here, so g++-compiled code can call them. A stream is a cudaStream_t
// passed as void* (nullptr is the legacy default stream). The kernels run on the current device;
// the pointers and the stream must belong to it. Every launcher throws collbench::RunError on a
// CUDA error. The values come from kernels/pattern.h, the same functions the host twins in
// bench/host_pattern.h use, so a device fill equals a host fill bit for bit.
#pragma once

#include <cstdint>

#include "kernels/pattern.h"

namespace collbench::device {

// dst[i] = encode(input_value(spec, i)), i < count. Asynchronous on `stream`.
void fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec, void* stream);
// dst[i] = encode(v), i < count (the poison written into outputs). Asynchronous on `stream`.
void fill_value(DType t, void* dst, std::uint64_t count, int v, void* stream);
// Elements i < count whose bits differ from encode(expected_value(spec, i)). Synchronizes `stream`.
std::int64_t count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec, void* stream);

}  // namespace collbench::device
