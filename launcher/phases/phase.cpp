#include "launcher/phases/phase.h"

namespace collbench {

std::string status_name(PhaseResult::Status s) {
  switch (s) {
    case PhaseResult::Status::Ran: return "ran";
    case PhaseResult::Status::Skipped: return "skipped";
    case PhaseResult::Status::Failed: return "failed";
  }
  return "ran";
}

PhaseResult skipped_phase(std::string reason) {
  PhaseResult p;
  p.status = PhaseResult::Status::Skipped;
  p.reason = std::move(reason);
  return p;
}

PhaseResult failed_phase(int exit_code, std::string reason) {
  PhaseResult p;
  p.status = PhaseResult::Status::Failed;
  p.exit_code = exit_code;
  p.reason = std::move(reason);
  return p;
}

}  // namespace collbench
