// The thresholds loader reads strictly: a file is refused with ThresholdError (naming the key and
// the fix) or loaded with every number exactly as written. Any other exception is a finding.
#include <nlohmann/json.hpp>

#include "reports/thresholds/thresholds.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = collbench::fuzz::write_input_file(data, size, "thresholds.json");
  InstanceThresholds t;
  try {
    t = load_thresholds_file(path);
  } catch (const ThresholdError&) {
    return 0;
  }
  // Loaded: the rows and their whole numbers are what the file says.
  const auto doc = nlohmann::json::parse(collbench::fuzz::text_of(data, size));
  const auto& rows = doc["thresholds"];
  FUZZ_CHECK(t.rows.size() == rows.size());
  FUZZ_CHECK(doc["hardware"]["gpus"].get<std::int64_t>() == t.hardware.gpus);
  FUZZ_CHECK(doc["hardware"]["efa_devices"].get<std::int64_t>() == t.hardware.efa_devices);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const ThresholdRow& row = t.rows[i];
    FUZZ_CHECK(rows[i]["bytes"].get<std::uint64_t>() == row.bytes);
    FUZZ_CHECK(rows[i].value("min_nodes", std::int64_t{1}) == row.min_nodes);
    FUZZ_CHECK(rows[i].value("max_nodes", std::int64_t{0}) == row.max_nodes);
    FUZZ_CHECK(row.fail_below >= 0 && row.warn_below >= row.fail_below);
  }
  return 0;
}
