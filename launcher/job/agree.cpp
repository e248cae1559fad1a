#include "launcher/job/agree.h"

#include <fmt/format.h>

#include <cstdio>
#include <ctime>

#include "bench/errors.h"
#include "bench/mpi_check.h"

namespace collbench {

std::string now_utc() { return utc_after(0); }

std::string utc_after(double seconds) {
  const std::time_t t = std::time(nullptr) + static_cast<std::time_t>(seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void print_error(const std::string& msg, int rank) {
  if (rank == 0) std::fprintf(stderr, "collbench: error: %s\n", msg.c_str());
  else print_rank_error(msg, rank);
}

std::string rank_and_host(int rank) { return fmt::format("rank {} (host {})", rank, this_host()); }

void print_rank_error(const std::string& msg, int rank) {
  std::fprintf(stderr, "collbench: error on %s: %s\n", rank_and_host(rank).c_str(), msg.c_str());
  std::fflush(stderr);
}

FailureReport report_at_once(int rank) {
  return [rank](const std::exception& e) { print_rank_error(e.what(), rank); };
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
