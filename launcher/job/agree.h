// Steps every process takes together, and how their errors reach the user: agree(), the error
// lines that name a rank and host, and the UTC time stamps documents carry. Not here: the agreement
// protocol itself (bench/agreement.h) and what ends a job early (stop_signals.h, hang_report.h).
#pragma once

#include <functional>
#include <string>

#include "bench/agreement.h"
#include "bench/control.h"

namespace collbench {

// ISO 8601 UTC, to the second: now, and `seconds` from now.
std::string now_utc();
std::string utc_after(double seconds);

// "collbench: error: ..." on rank 0; other ranks add their rank and host.
void print_error(const std::string& msg, int rank);
// "collbench: error on rank R (host H): ...", on any rank: for what only that process knows.
void print_rank_error(const std::string& msg, int rank);
// "rank R (host H)": how a message names one process.
std::string rank_and_host(int rank);

// How a process that fails a set-up step says so at once: "collbench: error on rank R (host H): ...".
FailureReport report_at_once(int rank);

// Runs `step` on every process. If it throws anywhere, all processes learn the worst exit code and
// leave together; the failing processes say why (rank 0 alone when it failed too, since then the
// cause is usually the same everywhere); a StepFailed from nested agreed steps was reported already.
// 0 when every process succeeded.
int agree(Control& control, const std::function<void()>& step);

}  // namespace collbench
