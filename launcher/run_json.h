// Reading a collbench results file given on the command line.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace collbench {

// A collbench.run/1 document from FILE or a FILE.partial journal. Throws UsageError naming the
// file when it cannot be read or is not a collbench result.
nlohmann::json read_run_json(const std::string& path);

// The whole file; throws UsageError naming it when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace collbench
