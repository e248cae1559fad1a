// Lenient reads of one member of a JSON object, for printers of documents any version may have
// written: a member that is absent, null or of another type reads as empty, never throws.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace collbench::report {

// A string member as it is; a number or boolean as JSON writes it; "" for the rest.
inline std::string string_at(const nlohmann::json& o, const char* key) {
  if (!o.is_object() || !o.contains(key)) return "";
  const nlohmann::json& v = o[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number() || v.is_boolean()) return v.dump();
  return "";
}

// A number member; NaN for the rest.
inline double number_at(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() ? o[key].get<double>() : NAN;
}

// A byte count for printing from a number that may be anything: 0 for NaN and below 0, the largest
// count for what is past it (a cast of those is undefined behaviour).
inline std::uint64_t whole_bytes(double v) {
  if (!(v > 0)) return 0;
  return v >= 18446744073709551615.0 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(v);
}
inline std::uint64_t bytes_at(const nlohmann::json& o, const char* key) { return whole_bytes(number_at(o, key)); }

// An object member, or an empty object; an array member, or an empty array. Copies: bind them to a
// local before keeping pointers into them.
inline nlohmann::json object_at(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_object() ? o[key] : nlohmann::json::object();
}
inline nlohmann::json array_at(const nlohmann::json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_array() ? o[key] : nlohmann::json::array();
}

}  // namespace collbench::report
