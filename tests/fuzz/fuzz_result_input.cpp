// Any results file given to analyze, compare or --baseline (load_results), and the run-document
// reader (read_run_json), on any bytes. Both document UsageError naming the file; the JSON readers
// under them may also throw std::invalid_argument and nlohmann::json exceptions.
#include <stdexcept>

#include "bench/errors.h"
#include "launcher/result_input.h"
#include "launcher/run_json.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = collbench::fuzz::write_input_file(data, size, "results");
  try {
    const nlohmann::json doc = collbench::read_run_json(path);
    FUZZ_CHECK(doc.is_object() && doc.contains("schema"));
  } catch (const collbench::UsageError&) {
  } catch (const nlohmann::json::exception&) {
  }
  nlohmann::json document;
  try {
    document = collbench::load_results(path, {}).document;
    FUZZ_CHECK(document.is_object());
    collbench::load_results(path, {3, "all_gather"});
  } catch (const collbench::UsageError&) {
  } catch (const std::invalid_argument&) {
  } catch (const nlohmann::json::exception&) {
  }
  // What compare and --baseline build from the file is written as JSON: it must dump.
  document.dump();
  return 0;
}
