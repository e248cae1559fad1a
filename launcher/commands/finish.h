// How every command ends: rank 0 prints the findings and the summary and saves the document; every
// process returns the same exit code.
#pragma once

#include <optional>

#include "bench/control.h"
#include "launcher/cli/command.h"
#include "launcher/phases/phase.h"

namespace collbench {

struct Ending {
  std::vector<report::Finding> findings;  // rank 0
  bool print_findings = true;  // false: the command printed them itself (analyze, file by file)
  std::function<void(const std::vector<report::Finding>&, int)> save;  // may be empty
  std::optional<int> exit_code;  // set: this code, not the findings' (a set-up failure is 1, not 3)
  // The document, for --html; may be empty (then no page).
  std::function<nlohmann::json(const std::vector<report::Finding>&, int)> document = nullptr;
};

// Collective over `control`. A document that cannot be written makes the exit code 1 (said on
// stderr); the findings and summary are on stdout before it is tried.
int finish(Control& control, const VerdictOptions& verdict, bool color, const Ending& ending);

// A phase's own ending, as its command reports it: a phase that failed returns its agreed code, a
// skipped one is a usage error said by rank 0, and one that ran ends in finish().
int finish_phase(Control& control, const VerdictOptions& verdict, bool color, PhaseResult phase);

}  // namespace collbench
