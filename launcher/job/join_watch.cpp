#include "launcher/job/join_watch.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "common/short_list.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"
#include "launcher/job/peers.h"


namespace collbench {
namespace {

void leave(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  _exit(kExitCouldNotRun);
}

}  // namespace

std::string never_started_message(const std::vector<MissingRank>& missing, int size, double timeout_s) {
  std::vector<std::string> ranks;
  for (const auto& m : missing)
    ranks.push_back(fmt::format("rank {}{}", m.rank, m.host.empty() ? "" : fmt::format(" (host {})", m.host)));
  const std::string list = short_list(ranks, 16, ", ");
  return fmt::format("collbench: error: MPI_Init did not finish within {:g} s: {} of the job's {} processes never "
                     "started: {}; the launcher placed them there and they never reached collbench (check that "
                     "host: its launcher daemon, the binary and its libraries, the container); every other process "
                     "started and waited",
                     timeout_s, missing.size(), size, list);
}

JoinWatch::JoinWatch(double timeout_s) {
  job_peers_available();  // announce this process before anything can wait for it
  thread_ = std::thread([this, timeout_s] { watch(timeout_s); });
}

JoinWatch::~JoinWatch() {
  joined();
  if (thread_.joinable()) thread_.join();
}

void JoinWatch::joined() {
  {
    std::lock_guard lock(mutex_);
    joined_ = true;
  }
  cv_.notify_all();
}

void JoinWatch::watch(double timeout_s) {
  {
    std::unique_lock lock(mutex_);
    if (cv_.wait_for(lock, std::chrono::duration<double>(timeout_s), [this] { return joined_; })) return;
  }
  const int me = launcher_rank(), size = launcher_size();
  const std::string self = fmt::format("collbench: error on rank {} (host {}): MPI_Init did not finish within {:g} s: "
                                       "a process of this job never started or cannot reach the others",
                                       me, this_host(), timeout_s);
  if (!job_peers_available())
    leave(self + "; this one started (the launcher's own log names the one it could not start)");
  const std::vector<MissingRank> missing = silent_peers("collbench.started", 5);
  int lowest_started = 0;
  while (lowest_started < size && std::any_of(missing.begin(), missing.end(),
                                              [&](const MissingRank& m) { return m.rank == lowest_started; }))
    ++lowest_started;
  if (missing.empty()) leave(self + "; every process started, so one cannot reach the others (network, firewall)");
  if (me == lowest_started) leave(never_started_message(missing, size, timeout_s));
  std::this_thread::sleep_for(std::chrono::seconds(2));  // the lowest started rank names them
  leave(self + fmt::format("; rank {} names it", lowest_started));
}

}  // namespace collbench
