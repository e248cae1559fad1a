// Any results file collbench reads: its own JSON or .partial journal, nccl-tests text (any line
// prefix) or nccl-tests -J JSON, as the result model for analyze, and as a collbench.run/1
// document for compare and run --baseline, so that each reads what the others read.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/analyze/analyze_input.h"
#include "reports/core/result.h"

namespace collbench {

struct LoadedResults {
  std::string text;                      // the file, without fixture metadata lines (an NCCL log may be in it)
  report::ExternalResults results;       // cases, span, notes, malformed lines
  std::vector<report::NodeInfo> nodes;   // which host each rank ran on, where the file says
  std::string backend;                   // collbench's own results say which; empty for the rest
  std::string incomplete;                // non-empty: how the input shows it ended before its sweep did
  nlohmann::json document;               // collbench.run/1: the file's own, or one built from `results`
};

// Throws UsageError naming the file when it cannot be read or a hint contradicts it.
LoadedResults load_results(const std::string& path, const report::ResultHints& hints);

// load_results for compare and --baseline: also refuses a file with no result table in it.
nlohmann::json load_results_document(const std::string& path);

}  // namespace collbench
