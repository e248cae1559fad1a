#include "launcher/job_peers.h"

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
  // The requests are non-blocking: a launcher's server may hold a request for a process that never
  // posts past any timeout asked of it. What answers late is never read (the process is leaving).
  std::vector<std::optional<std::string>> posted(const char* key, int size, double wait_s) const {
    struct Answers {
      std::mutex mutex;
      std::condition_variable cv;
      std::vector<std::optional<std::string>> values;
      int pending = 0;
    };
    struct Ask {
      Answers* answers;
      int rank;
    };
    auto* answers = new Answers;  // outlives this call: late callbacks may still write to it
    answers->values.assign(static_cast<std::size_t>(size), std::nullopt);
    const int me_rank = static_cast<int>(me.rank);
    for (int r = 0; r < size; ++r) {
      if (r == me_rank) continue;
      pmix_proc_t p;
      PMIX_LOAD_PROCID(&p, me.nspace, static_cast<pmix_rank_t>(r));
      {
        std::lock_guard lock(answers->mutex);
        ++answers->pending;
      }
      auto done = [](pmix_status_t status, pmix_value_t* v, void* data) {
        auto* ask = static_cast<Ask*>(data);
        {
          std::lock_guard lock(ask->answers->mutex);
          if (status == PMIX_SUCCESS)
            ask->answers->values[static_cast<std::size_t>(ask->rank)] =
                v != nullptr && v->type == PMIX_STRING && v->data.string != nullptr ? v->data.string : "";
          --ask->answers->pending;
        }
        ask->answers->cv.notify_all();
        delete ask;
      };
      auto* ask = new Ask{answers, r};
      if (PMIx_Get_nb(&p, key, nullptr, 0, done, ask) != PMIX_SUCCESS) {
        std::lock_guard lock(answers->mutex);
        --answers->pending;
        delete ask;
      }
    }
    std::unique_lock lock(answers->mutex);
    answers->cv.wait_for(lock, std::chrono::duration<double>(wait_s), [&] { return answers->pending == 0; });
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
