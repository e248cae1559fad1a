// What one measuring step returns: its verdicts and how to write its document. run, hunt and fabric
// are one phase each and end in finish(); preflight chains them and ends once. Not here: what a
// phase has around its measurement (the watchdog, the early end: phase_frame.h).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench {

struct PhaseResult {
  enum class Status { Ran, Skipped, Failed };
  Status status = Status::Ran;
  std::string reason;  // why it was skipped or failed
  int exit_code = 0;   // Failed: the code every process agreed on (its processes said why on stderr)
  double wall_s = 0;
  std::vector<report::Finding> findings;  // rank 0
  // Rank 0: the phase's document for the command's final findings and exit code; empty when it did not run.
  std::function<nlohmann::json(const std::vector<report::Finding>&, int)> document;
  // Rank 0: writes that document to the command's own output file, if it was given one.
  std::function<void(const std::vector<report::Finding>&, int)> save;
};

std::string status_name(PhaseResult::Status s);  // "ran", "skipped", "failed"
PhaseResult skipped_phase(std::string reason);
PhaseResult failed_phase(int exit_code, std::string reason);

}  // namespace collbench
