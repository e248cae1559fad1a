// A collbench document given to `collbench report`: refused with InputError by the strict readers
// (check_document), or turned into metrics (refused only with std::invalid_argument: not a
// collbench document), Prometheus text, EMF lines and a page. Any other exception is a finding.
#include <stdexcept>

#include "reports/core/json_input.h"
#include "reports/core/json_read.h"
#include "reports/export/emf.h"
#include "reports/export/metrics.h"
#include "reports/export/prometheus.h"
#include "reports/html/page.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json doc = nlohmann::json::parse(collbench::fuzz::text_of(data, size), nullptr, false);
  if (!doc.is_object() || !doc.contains("schema")) return 0;  // read as analyze reads it: fuzz_result_input
  try {
    check_document(doc);
  } catch (const InputError&) {
    return 0;
  }
  MetricSet set;
  try {
    add_document_metrics(doc, set);
  } catch (const std::invalid_argument&) {
  }
  prometheus_text(set);
  emf_lines(set, "collbench", 0);
  html::html_page({{"doc.json", doc, std::nullopt}, {"again.json", doc, std::nullopt}}, "fuzz");
  html::document_instance_type(doc);
  return 0;
}
