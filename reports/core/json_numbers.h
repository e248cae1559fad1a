// Whole numbers read from JSON that someone else wrote. nlohmann's get<int>() of a number that
// does not fit (1e300, -1 for an unsigned field, 2^40 for an int) is undefined behaviour or a
// silent wrap; these refuse it with InputError (a std::invalid_argument) naming the field instead.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/core/json_input.h"

namespace collbench::report {

// `j` as a T: integers in T's range, and finite numbers with a fraction (truncated, as get<T>()
// does) whose whole part is in range.
template <class T> T whole_number(const nlohmann::json& j, std::string_view what) {
  if (j.is_number_unsigned()) {
    if (const auto v = j.get<std::uint64_t>(); std::in_range<T>(v)) return static_cast<T>(v);
  } else if (j.is_number_integer()) {
    if (const auto v = j.get<std::int64_t>(); std::in_range<T>(v)) return static_cast<T>(v);
  } else if (j.is_number_float()) {
    const double v = std::trunc(j.get<double>());
    const double limit = std::ldexp(1.0, std::numeric_limits<T>::digits);  // 2^31 for int, 2^64 for uint64
    if (std::isfinite(v) && v < limit && v >= (std::numeric_limits<T>::is_signed ? -limit : 0.0))
      return static_cast<T>(v);
  } else {
    throw InputError(fmt::format("{} is {}; it must be a whole number", what, json_kind(j)));
  }
  throw InputError(fmt::format("{} is {}: out of range (a whole number from {} to {})", what, j.dump(),
                               std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// obj.value(key, fallback) for a whole number (absent or null: fallback), refusing one that does not
// fit. `obj` must be an object.
template <class T> T whole_value(const nlohmann::json& obj, const char* key, T fallback) {
  if (!obj.is_object()) object_of(obj, fmt::format("the value holding {}", key));  // throws
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? fallback : whole_number<T>(*it, key);
}

// obj.value(key, std::vector<T>{}) for a list of whole numbers, refusing one that does not fit.
template <class T> std::vector<T> whole_list(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) object_of(obj, fmt::format("the value holding {}", key));  // throws
  std::vector<T> out;
  for (const auto& v : array_field(obj, key)) out.push_back(whole_number<T>(v, key));
  return out;
}

}  // namespace collbench::report
