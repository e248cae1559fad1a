// Before MPI_Init: a process of the job that never starts holds every other one inside MPI_Init
// (the launcher's fence waits for all), and without a watch the job hangs with no word. Each
// process announces itself to the launcher's PMIx server; when MPI_Init has not returned within the
// timeout, the processes that did start ask the server which ranks never announced, and the lowest
// of them names those ranks and the hosts the launcher placed them on. Without PMIx (another
// launcher), each process names itself instead. Either way every started process leaves with 1.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "launcher/job/peers.h"

namespace collbench {

class JoinWatch {
 public:
  explicit JoinWatch(double timeout_s);
  ~JoinWatch();
  JoinWatch(const JoinWatch&) = delete;
  JoinWatch& operator=(const JoinWatch&) = delete;

  // MPI_Init returned (or failed): stop watching.
  void joined();

 private:
  void watch(double timeout_s);

  std::mutex mutex_;
  std::condition_variable cv_;
  bool joined_ = false;
  std::thread thread_;
};

// The message of a join that timed out, from what the started processes know: `missing` ranks
// (with their hosts, "" when unknown) of a job of `size`. Exposed for tests.
std::string never_started_message(const std::vector<MissingRank>& missing, int size, double timeout_s);

}  // namespace collbench
