// Results collbench did not produce (nccl-tests text or -J JSON), turned into the result model so
// the same verdicts apply. What the file does not say comes from hints (--nodes, --op) or is
// inferred and said so in `notes`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/result.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench::report {

struct ResultHints {
  int nodes = 0;   // 0: unknown
  std::string op;  // empty: unknown
};

struct ExternalResults {
  std::string format;  // "nccl-tests text", "nccl-tests json"
  std::vector<CaseResult> cases;
  RunSpan span;        // nodes 0 when unknown
  std::vector<MalformedLine> malformed;
  std::vector<std::string> notes;
};

// "all_reduce_perf", "AllReduce", "alltoall" -> "all_reduce", "all_to_all"; unknown names lower-cased.
std::string normalize_op(std::string_view name);

// The text and JSON readers throw std::invalid_argument when a hint contradicts the file
// (--nodes against the hosts its rank lines name); the JSON reader throws InputError (a subclass,
// reports/core/json_input.h) naming the field for a value of the wrong type or a whole number out
// of its field's range (size, count, rank, nwrong).
ExternalResults from_nccl_tests_text(std::string_view text, std::string_view file_name, const ResultHints& hints);
ExternalResults from_nccl_tests_json(const nlohmann::json& doc, std::string_view file_name, const ResultHints& hints);

}  // namespace collbench::report
