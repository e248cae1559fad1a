#include "launcher/run_json.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bench/errors.h"
#include "reports/core/journal.h"
#include "reports/core/json_read.h"
#include "reports/core/result.h"

namespace collbench {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("'{}': cannot be read ({}); check the path", path, std::strerror(errno)));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_run_json(const std::string& path) {
  const std::string text = read_text_file(path);
  const auto not_ours = [&](const std::string& why) {
    return UsageError(fmt::format("'{}': {}; give a collbench --json result (or its .partial journal)", path, why));
  };
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error&) {
    // A partial journal is JSON lines, not one document.
    try {
      const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')));
      if (first.value("schema", "") != report::kPartialSchema) throw not_ours("not a collbench result");
      return report::document_from_partial(text);
    } catch (const nlohmann::json::parse_error&) {
      throw not_ours("not JSON");
    } catch (const std::runtime_error& e) {
      if (dynamic_cast<const UsageError*>(&e)) throw;
      throw not_ours(e.what());
    }
  }
  if (!doc.is_object() || doc.value("schema", "") != report::kRunSchema)
    throw not_ours(fmt::format("schema is not {}", report::kRunSchema));
  return doc;
}

}  // namespace collbench
