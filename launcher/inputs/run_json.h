// Reading files given on the command line: collbench results, and the one way what is wrong in
// any of them becomes bad input (exit 2).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace collbench {

// A collbench.run/1 document from FILE or a FILE.partial journal. Throws UsageError naming the
// file when it cannot be read or is not a collbench result.
nlohmann::json read_run_json(const std::string& path);

// The whole file; throws UsageError naming it when it cannot be read.
std::string read_text_file(const std::string& path);

// In a catch block: rethrows what a reader of `path`'s contents threw as UsageError
// "'PATH': what; fix" (report::InputError, nlohmann's exceptions, std::out_of_range), or
// "'PATH': what" for a plain std::invalid_argument, whose message says what to change (a hint the
// file contradicts). UsageError passes unchanged; anything else (bad_alloc, a bug) is rethrown.
[[noreturn]] void rethrow_as_usage_error(const std::string& path, std::string_view fix);

// Runs `read` on what `path` holds; see rethrow_as_usage_error.
template <class F> decltype(auto) reading_file(const std::string& path, std::string_view fix, F&& read) {
  try {
    return std::forward<F>(read)();
  } catch (...) {
    rethrow_as_usage_error(path, fix);
  }
}

}  // namespace collbench
