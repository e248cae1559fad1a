#include "launcher/job/peers.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>

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
    up = announce(kStartedKey);
  }

  bool announce(const char* key, const std::string& value = "") const {
    if (!up) return false;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(value.c_str());  // copied by PMIx_Put
    return PMIx_Put(PMIX_GLOBAL, key, &v) == PMIX_SUCCESS && PMIx_Commit() == PMIX_SUCCESS;
  }
  ~Pmix() {
    if (up) PMIx_Finalize(nullptr, 0);
  }

  // What every rank other than this one posted under `key` within `wait_s` seconds (nullopt: nothing).
  // A server may answer "not found" at once for a process that has not posted yet (after a fence
  // it has that process's data), or hold the request (a process that never started): a rank whose
  // answer came back empty is asked again until the wait ends; a held request is not repeated.
  // What answers late is never read (the process is leaving).
  std::vector<std::optional<std::string>> posted(const char* key, int size, double wait_s) const {
    struct Answers {
      std::mutex mutex;
      std::condition_variable cv;
      std::vector<std::optional<std::string>> values;
      std::vector<char> asking;  // a request is out for this rank
    };
    struct Ask {
      Answers* answers;
      int rank;
    };
    auto* answers = new Answers;  // outlives this call: late callbacks may still write to it
    answers->values.assign(static_cast<std::size_t>(size), std::nullopt);
    answers->asking.assign(static_cast<std::size_t>(size), 0);
    const int me_rank = static_cast<int>(me.rank);
    auto done = [](pmix_status_t status, pmix_value_t* v, void* data) {
      auto* ask = static_cast<Ask*>(data);
      {
        std::lock_guard lock(ask->answers->mutex);
        const auto r = static_cast<std::size_t>(ask->rank);
        if (status == PMIX_SUCCESS)
          ask->answers->values[r] = v != nullptr && v->type == PMIX_STRING && v->data.string != nullptr ? v->data.string : "";
        ask->answers->asking[r] = 0;
      }
      ask->answers->cv.notify_all();
      delete ask;
    };
    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait_s));
    std::unique_lock lock(answers->mutex);
    for (;;) {
      bool all = true;
      for (int r = 0; r < size; ++r) {
        const auto i = static_cast<std::size_t>(r);
        if (r == me_rank || answers->values[i]) continue;
        all = false;
        if (answers->asking[i]) continue;
        answers->asking[i] = 1;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, me.nspace, static_cast<pmix_rank_t>(r));
        auto* ask = new Ask{answers, r};
        lock.unlock();  // the callback may run at once, on this thread
        const bool sent = PMIx_Get_nb(&p, key, nullptr, 0, done, ask) == PMIX_SUCCESS;
        lock.lock();
        if (!sent) {
          answers->asking[i] = 0;
          delete ask;
        }
      }
      if (all || Clock::now() >= deadline) break;
      answers->cv.wait_until(lock, std::min(deadline, Clock::now() + std::chrono::milliseconds(200)));
    }
    return answers->values;
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
  bool announce(const char*, const std::string& = "") const { return false; }
  std::vector<std::optional<std::string>> posted(const char*, int, double) const { return {}; }
  std::string host_of(int) const { return ""; }
};
#endif

Pmix& pmix() {
  static Pmix p;
  return p;
}

}  // namespace

int launcher_rank() { return env_int({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}, 0); }
int launcher_size() { return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}, 1); }

bool job_peers_available() { return pmix().up; }

void announce_to_peers(const char* key, const std::string& value) { pmix().announce(key, value); }

std::vector<std::optional<std::string>> peers_posted(const char* key, double wait_s) {
  return pmix().posted(key, launcher_size(), wait_s);
}

std::string peer_host(int rank) { return pmix().host_of(rank); }

std::vector<MissingRank> silent_peers(const char* key, double wait_s) {
  std::vector<MissingRank> out;
  if (!pmix().up) return out;
  const auto values = peers_posted(key, wait_s);
  for (int r = 0; r < static_cast<int>(values.size()); ++r)
    if (r != launcher_rank() && !values[static_cast<std::size_t>(r)]) out.push_back({r, peer_host(r)});
  return out;
}

}  // namespace collbench
