// JSON that another program or a person wrote (results, baselines, journals, thresholds, documents
// given to report): every way it can be wrong reaches the caller as one exception type, InputError,
// whose message names the field. The launcher adds the file's name and turns it into exit code 2.
#pragma once

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace collbench::report {

// The contents of an input are wrong: "cases[3].bytes is a string; it must be a number".
struct InputError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// "a number", "an object", "null", ... for messages about what a field holds.
std::string json_kind(const nlohmann::json& j);

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const std::exception& e);

// The text as one JSON value. InputError "not JSON (parse error at line 2, column 1: ...)", or for
// a number no double holds (1e999) "... is out of range".
nlohmann::json parse_input_json(std::string_view text);

// In a catch block: rethrows the exception being handled as InputError "<where>: <what>" when it is
// what a reader of outside JSON throws (InputError, nlohmann's exceptions, std::invalid_argument,
// std::out_of_range); anything else (bad_alloc, a bug's logic_error) is rethrown as it is.
[[noreturn]] void rethrow_as_input_error(std::string_view where);

// Runs `read`, naming `where` (a field, "cases[3]") in what it throws about its input.
template <class F> decltype(auto) reading(std::string_view where, F&& read) {
  try {
    return std::forward<F>(read)();
  } catch (...) {
    rethrow_as_input_error(where);
  }
}

// obj[key] as a string, or as a number: `fallback` when absent or null, InputError naming `key` when
// it holds another type. `obj` must be an object.
std::string string_field(const nlohmann::json& obj, const char* key, const std::string& fallback = "");
double number_field(const nlohmann::json& obj, const char* key, double fallback = 0);

// `j` itself when it is an object; else InputError "<what> is a number; <noun> must be an object".
const nlohmann::json& object_of(const nlohmann::json& j, std::string_view what, std::string_view noun = "it");
// obj[key] when it is an array, an empty array when absent or null, InputError naming `key` else.
const nlohmann::json& array_field(const nlohmann::json& obj, const char* key);

}  // namespace collbench::report
