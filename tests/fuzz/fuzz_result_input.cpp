// Any results file given to analyze, compare or --baseline (load_results), and the run-document
// reader (read_run_json), on any bytes. Both document UsageError naming the file, and nothing else:
// an exception of any other type escaping (a nlohmann error, std::out_of_range) is a finding. What
// compare and --baseline get back is then read by compare itself, which must not throw.
#include "bench/errors.h"
#include "launcher/inputs/result_input.h"
#include "launcher/inputs/run_json.h"
#include "reports/core/oversubscription.h"
#include "reports/run/compare.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = collbench::fuzz::write_input_file(data, size, "results");
  try {
    const nlohmann::json doc = collbench::read_run_json(path);
    FUZZ_CHECK(doc.is_object() && doc.contains("schema"));
  } catch (const collbench::UsageError&) {
  }
  nlohmann::json document;
  try {
    collbench::LoadedResults in = collbench::load_results(path, {});
    document = in.document;
    FUZZ_CHECK(document.is_object());
    collbench::report::oversubscribed(document);  // analyze reads the document as it is
    collbench::load_results(path, {3, "all_gather"});
  } catch (const collbench::UsageError&) {
  }
  try {
    const nlohmann::json base = collbench::load_results_document(path);
    collbench::report::render_comparison(collbench::report::compare_runs(base, base, std::nullopt));
  } catch (const collbench::UsageError&) {
  }
  // What compare and --baseline build from the file is written as JSON: it must dump.
  document.dump();
  return 0;
}
