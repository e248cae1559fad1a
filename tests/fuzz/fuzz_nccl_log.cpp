// The NCCL_DEBUG=INFO log reader: facts per rank, the split of a combined launcher log, and the
// findings from them. None of these documents an error: any text is a log.
#include "reports/core/json_report.h"
#include "reports/env/nccl_log.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = collbench::fuzz::text_of(data, size);
  const NcclLogFacts whole = parse_nccl_log(text);
  FUZZ_CHECK(whole.warnings.size() <= 32);

  std::vector<std::pair<int, NcclLogFacts>> per_rank;
  int previous = -1;
  for (const auto& [rank, lines] : split_log_by_rank(text)) {
    FUZZ_CHECK(rank > previous);  // ranks in increasing order, each once
    previous = rank;
    per_rank.emplace_back(rank, parse_nccl_log(lines));
  }
  // Facts and findings go into JSON documents (the environment audit): they must dump.
  nlohmann::json doc{{"warnings", whole.warnings},
                     {"facts", {whole.nccl_version, whole.network, whole.ofi_plugin_version, whole.libfabric_version,
                                whole.ofi_provider}}};
  for (const Finding& f : nccl_log_findings(per_rank, true)) doc["findings"].push_back(to_json(f));
  for (const Finding& f : nccl_log_findings(per_rank, false)) doc["findings"].push_back(to_json(f));
  doc.dump();
  return 0;
}
