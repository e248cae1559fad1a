#include "reports/core/json_input.h"

#include <fmt/format.h>

namespace collbench::report {

using nlohmann::json;

std::string json_kind(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "a number";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "not a JSON value";
  }
}

std::string json_error_text(const std::exception& e) {
  const std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0)
    if (const auto end = what.find("] "); end != std::string::npos) return what.substr(end + 2);
  return what;
}

json parse_input_json(std::string_view text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("not JSON ({})", json_error_text(e)));
  } catch (const json::exception& e) {  // out_of_range: a number past what a double holds (1e999)
    throw InputError(fmt::format("a number in it is out of range ({})", json_error_text(e)));
  }
}

void rethrow_as_input_error(std::string_view where) {
  const auto named = [&](const std::string& what) {
    return InputError(where.empty() ? what : fmt::format("{}: {}", where, what));
  };
  try {
    throw;
  } catch (const InputError& e) {
    throw named(e.what());
  } catch (const json::exception& e) {
    throw named(json_error_text(e));
  } catch (const std::invalid_argument& e) {
    throw named(e.what());
  } catch (const std::out_of_range& e) {
    throw named(e.what());
  }
}

std::string string_field(const json& obj, const char* key, const std::string& fallback) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_string()) throw InputError(fmt::format("{} is {}; it must be a string", key, json_kind(*it)));
  return it->get<std::string>();
}

double number_field(const json& obj, const char* key, double fallback) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_number()) throw InputError(fmt::format("{} is {}; it must be a number", key, json_kind(*it)));
  return it->get<double>();
}

const json& object_of(const json& j, std::string_view what, std::string_view noun) {
  if (!j.is_object()) throw InputError(fmt::format("{} is {}; {} must be an object", what, json_kind(j), noun));
  return j;
}

const json& array_field(const json& obj, const char* key) {
  static const json kEmpty = json::array();
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return kEmpty;
  if (!it->is_array()) throw InputError(fmt::format("{} is {}; it must be an array", key, json_kind(*it)));
  return *it;
}

}  // namespace collbench::report
