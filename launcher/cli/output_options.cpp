#include "launcher/cli/output_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "bench/errors.h"

namespace collbench {

void check_output_file(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::absolute(path, ec).parent_path();
  if (fs::is_directory(path, ec)) throw UsageError(fmt::format("{} {} is a folder; give a file name in it", flag, path));
  if (!fs::is_directory(parent, ec))
    throw UsageError(fmt::format("{} {}: the folder {} does not exist; create it first", flag, path, parent.string()));
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw UsageError(fmt::format("{} {}: cannot write in {}; choose a folder you can write", flag, path, parent.string()));
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: the file exists and cannot be written; choose another name", flag, path));
}

void check_output_options(const CLI::App& command) {
  for (const char* name : {"--json", "--output", "--html", "--prom", "--emf"}) {
    const CLI::Option* opt = command.get_option_no_throw(name);
    if (opt == nullptr || opt->count() == 0) continue;
    for (const std::string& path : opt->results()) {
      if (path.empty()) throw UsageError(fmt::format("{} '': give a file name", name));
      if (path != "-") check_output_file(name, path);
    }
  }
}

}  // namespace collbench
