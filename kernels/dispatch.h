// Calls f(std::integral_constant<DType, T>{}) for the runtime datatype t, so typed loops and
// kernels are written once as templates.
#pragma once

#include <type_traits>

#include "kernels/types.h"

namespace collbench {

template <DType T> using dtype_c = std::integral_constant<DType, T>;

template <class F> decltype(auto) with_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Int8: return f(dtype_c<DType::Int8>{});
    case DType::Uint8: return f(dtype_c<DType::Uint8>{});
    case DType::Int32: return f(dtype_c<DType::Int32>{});
    case DType::Uint32: return f(dtype_c<DType::Uint32>{});
    case DType::Int64: return f(dtype_c<DType::Int64>{});
    case DType::Uint64: return f(dtype_c<DType::Uint64>{});
    case DType::Half: return f(dtype_c<DType::Half>{});
    case DType::Float: return f(dtype_c<DType::Float>{});
    case DType::Double: return f(dtype_c<DType::Double>{});
    case DType::BFloat16: return f(dtype_c<DType::BFloat16>{});
  }
  return f(dtype_c<DType::Float>{});
}

}  // namespace collbench
