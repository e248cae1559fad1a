#include "launcher/inputs/run_json.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "bench/errors.h"
#include "reports/core/journal.h"
#include "reports/core/json_input.h"
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

void rethrow_as_usage_error(const std::string& path, std::string_view fix) {
  const auto usage = [&](const std::string& what) {
    return UsageError(fix.empty() ? fmt::format("'{}': {}", path, what) : fmt::format("'{}': {}; {}", path, what, fix));
  };
  try {
    throw;
  } catch (const UsageError&) {
    throw;
  } catch (const report::InputError& e) {
    throw usage(e.what());
  } catch (const nlohmann::json::exception& e) {
    throw usage(report::json_error_text(e));
  } catch (const std::out_of_range& e) {
    throw usage(e.what());
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("'{}': {}", path, e.what()));
  }
}

nlohmann::json read_run_json(const std::string& path) {
  const std::string text = read_text_file(path);
  return reading_file(path, "give a collbench --json result (or its .partial journal)", [&] {
    nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) {
      // A partial journal is JSON lines, not one document.
      const auto first = nlohmann::json::parse(text.substr(0, text.find('\n')), nullptr, false);
      if (first.is_object() && first.contains("schema") && first["schema"] == report::kPartialSchema)
        return report::document_from_partial(text);
      doc = report::parse_input_json(text);  // throws, saying where the text stops being JSON
    }
    if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != report::kRunSchema)
      throw report::InputError(fmt::format("schema is not {}", report::kRunSchema));
    return doc;
  });
}

}  // namespace collbench
