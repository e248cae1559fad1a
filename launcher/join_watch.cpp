#include "launcher/join_watch.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "common/short_list.h"
#include "bench/errors.h"
#include "bench/mpi_check.h"

#if COLLBENCH_WITH_PMIX
#include <pmix.h>
#endif

namespace collbench {
namespace {

constexpr const char* kStartedKey = "collbench.started";

int env_int(std::initializer_list<const char*> vars, int fallback) {
  for (const char* v : vars)
    if (const char* s = std::getenv(v)) return std::atoi(s);
  return fallback;
}

int launcher_rank() { return env_int({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, 0); }
int launcher_size() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}, 1); }

void leave(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
  _exit(kExitCouldNotRun);
}

#if COLLBENCH_WITH_PMIX
// Announced through the launcher's PMIx server, or false when there is none (not launched by a
// PMIx launcher, or it refused).
struct Pmix {
  bool up = false;
  pmix_proc_t me{};

  Pmix() {
    if (std::getenv("PMIX_NAMESPACE") == nullptr) return;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return;
    up = true;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_INT;
    v.data.integer = 1;
    if (PMIx_Put(PMIX_GLOBAL, kStartedKey, &v) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) up = false;
  }
  ~Pmix() {
    if (up) PMIx_Finalize(nullptr, 0);
  }

  // The ranks other than this one that did not announce themselves within `wait_s` seconds. The
  // requests are non-blocking: a launcher's server may hold a request for a process that never
  // started past any timeout asked of it. What answers late is never read (the process is leaving).
  std::vector<int> silent(int size, double wait_s) const {
    struct Answers {
      std::mutex mutex;
      std::condition_variable cv;
      std::vector<char> started;
      int pending = 0;
    };
    struct Ask {
      Answers* answers;
      int rank;
    };
    auto* answers = new Answers;  // outlives this call: late callbacks may still write to it
    answers->started.assign(static_cast<std::size_t>(size), 0);
    const int me_rank = static_cast<int>(me.rank);
    for (int r = 0; r < size; ++r) {
      if (r == me_rank) continue;
      pmix_proc_t p;
      PMIX_LOAD_PROCID(&p, me.nspace, static_cast<pmix_rank_t>(r));
      {
        std::lock_guard lock(answers->mutex);
        ++answers->pending;
      }
      auto done = [](pmix_status_t status, pmix_value_t*, void* data) {
        auto* ask = static_cast<Ask*>(data);
        {
          std::lock_guard lock(ask->answers->mutex);
          ask->answers->started[static_cast<std::size_t>(ask->rank)] = status == PMIX_SUCCESS ? 1 : 0;
          --ask->answers->pending;
        }
        ask->answers->cv.notify_all();
        delete ask;
      };
      auto* ask = new Ask{answers, r};
      if (PMIx_Get_nb(&p, kStartedKey, nullptr, 0, done, ask) != PMIX_SUCCESS) {
        std::lock_guard lock(answers->mutex);
        --answers->pending;
        delete ask;
      }
    }
    std::vector<int> out;
    std::unique_lock lock(answers->mutex);
    answers->cv.wait_for(lock, std::chrono::duration<double>(wait_s), [&] { return answers->pending == 0; });
    for (int r = 0; r < size; ++r)
      if (r != me_rank && !answers->started[static_cast<std::size_t>(r)]) out.push_back(r);
    return out;
  }

  // The host the launcher placed rank r on, or "".
  std::string host_of(int r) const {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, me.nspace, static_cast<pmix_rank_t>(r));
    pmix_value_t* v = nullptr;
    std::string out;
    // Job-level data the launcher gave at start: answered locally, never waited for.
    pmix_info_t info;
    bool optional = true;
    PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &optional, PMIX_BOOL);
    const pmix_status_t rc = PMIx_Get(&p, PMIX_HOSTNAME, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc == PMIX_SUCCESS && v != nullptr && v->type == PMIX_STRING &&
        v->data.string != nullptr)
      out = v->data.string;
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    return out;
  }
};
#else
struct Pmix {
  bool up = false;
  std::vector<int> silent(int, double) const { return {}; }
  std::string host_of(int) const { return ""; }
};
#endif

Pmix& pmix() {
  static Pmix p;
  return p;
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
  pmix();  // announce this process before anything can wait for it
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
  const Pmix& p = pmix();
  if (!p.up) leave(self + "; this one started (the launcher's own log names the one it could not start)");
  std::vector<MissingRank> missing;
  for (int r : p.silent(size, 5)) missing.push_back({r, p.host_of(r)});
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
