// A FILE.partial journal read back as a run document (document_from_partial), then through the
// readers every command uses on a run document (cases, span, nodes, findings).
// The one documented error of all of them is InputError naming the line or field; any other
// exception escaping (a nlohmann error, std::out_of_range) is a finding.
#include "reports/core/json_input.h"
#include "reports/core/json_read.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json doc;
  try {
    doc = document_from_partial(collbench::fuzz::text_of(data, size));
  } catch (const InputError&) {
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
  } catch (const InputError&) {
  }
  return 0;
}
