#include "bench/host_pattern.h"

#include "kernels/dispatch.h"

namespace collbench {

void host_fill_input(DType t, void* dst, std::uint64_t count, const pattern::Spec& spec) {
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    auto* out = static_cast<pattern::storage_t<T>*>(dst);
    for (std::uint64_t i = 0; i < count; ++i) out[i] = pattern::encode<T>(pattern::input_value(spec, i));
  });
}

void host_fill_value(DType t, void* dst, std::uint64_t count, int v) {
  with_dtype(t, [&](auto tag) {
    constexpr DType T = decltype(tag)::value;
    auto* out = static_cast<pattern::storage_t<T>*>(dst);
    const auto bits = pattern::encode<T>(v);
    for (std::uint64_t i = 0; i < count; ++i) out[i] = bits;
  });
}

std::int64_t host_count_wrong(DType t, const void* src, std::uint64_t count, const pattern::Spec& spec) {
  return with_dtype(t, [&](auto tag) -> std::int64_t {
    constexpr DType T = decltype(tag)::value;
    const auto* in = static_cast<const pattern::storage_t<T>*>(src);
    std::int64_t wrong = 0;
    for (std::uint64_t i = 0; i < count; ++i)
      wrong += !pattern::same_bits<T>(in[i], pattern::encode<T>(pattern::expected_value(spec, i)));
    return wrong;
  });
}

}  // namespace collbench
