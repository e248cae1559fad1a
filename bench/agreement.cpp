#include "bench/agreement.h"

namespace collbench {

void agreed_step(Control& control, const FailureReport& report, const std::function<void()>& step) {
  int code = kExitOk;
  try {
    step();
  } catch (const StepFailed&) {
    throw;  // a nested step already agreed
  } catch (const UsageError& e) {
    code = kExitUsage;
    if (report) report(e);
  } catch (const std::exception& e) {
    code = kExitCouldNotRun;
    if (report) report(e);
  }
  const int worst = static_cast<int>(-control.min(-code));
  if (worst != kExitOk) throw StepFailed(worst, code != kExitOk);
}

}  // namespace collbench
