// A FILE.partial journal read back as a run document (document_from_partial), then through the
// readers every command uses on a run document (cases, span, nodes, findings).
// Documented errors: std::runtime_error for a damaged journal (and nothing else from the journal
// reader); from the document readers std::invalid_argument for a placement, scope or number this
// build does not take, and nlohmann::json exceptions for wrong types.
#include <stdexcept>

#include "reports/core/json_read.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json doc;
  try {
    doc = document_from_partial(collbench::fuzz::text_of(data, size));
  } catch (const std::runtime_error&) {
    return 0;
  }
  // What the reader claims: an incomplete run document with a list of cases.
  FUZZ_CHECK(doc.is_object() && doc["complete"] == false && doc["cases"].is_array());
  try {
    const auto cases = cases_from_json(doc);
    FUZZ_CHECK(cases.size() == doc["cases"].size());
    span_from_json(doc);
    nodes_from_json(doc);
    findings_from_json(doc);
  } catch (const std::invalid_argument&) {
  } catch (const nlohmann::json::exception&) {
  }
  return 0;
}
