#include "launcher/agree.h"

#include <cstdio>
#include <ctime>

#include "bench/errors.h"
#include "bench/mpi_check.h"

namespace collbench {

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void print_error(const std::string& msg, int rank) {
  if (rank == 0) std::fprintf(stderr, "collbench: error: %s\n", msg.c_str());
  else std::fprintf(stderr, "collbench: error on rank %d (host %s): %s\n", rank, this_host().c_str(), msg.c_str());
}

FailureReport report_at_once(int rank) {
  return [rank](const std::exception& e) {
    std::fprintf(stderr, "collbench: error on rank %d (host %s): %s\n", rank, this_host().c_str(), e.what());
    std::fflush(stderr);
  };
}

int agree(Control& control, const std::function<void()>& step) {
  int code = 0;
  std::string msg;
  try {
    step();
  } catch (const StepFailed& e) {
    code = e.exit_code;  // reported by the failing processes themselves
  } catch (const UsageError& e) {
    code = kExitUsage;
    msg = e.what();
  } catch (const std::exception& e) {
    code = kExitCouldNotRun;
    msg = e.what();
  }
  const bool root_failed = control.broadcast_flag(code != 0);
  const int worst = static_cast<int>(-control.min(-code));
  if (!msg.empty() && (control.rank() == 0 || !root_failed)) print_error(msg, control.rank());
  return worst;
}

}  // namespace collbench
