#include "bench/nccl_lifecycle.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "bench/errors.h"

namespace collbench::nccl {
namespace {

using Clock = std::chrono::steady_clock;

struct NcclCallFailed {
  int result;
};

Clock::time_point after_seconds(double s) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return fmt::format("rank{} {}", ranks.size() > 1 ? "s" : "", out);
}

}  // namespace

CommSet::CommSet(Api& api, CommSettings settings) : api_(api), settings_(std::move(settings)) {}

CommSet::~CommSet() { release(); }

int CommSet::check(int result, const char* call, std::size_t local) {
  if (result != kSuccess && result != kInProgress) fail(call, local, result);
  return result;
}

void CommSet::fail(const char* what, std::size_t local, int result) {
  const Comm comm = local < comms_.size() ? comms_[local] : nullptr;
  std::string msg = fmt::format("NCCL {} failed on rank {} (host {}): {}", what, first_ + static_cast<int>(local),
                                settings_.host, api_.describe(result, comm));
  if (result == kRemoteError) msg += "; a peer rank failed or became unreachable";
  abort();
  throw RunError(msg);
}

void CommSet::timed_out(const char* what, const std::vector<std::size_t>& pending) {
  std::vector<int> ranks;
  for (std::size_t i : pending) ranks.push_back(first_ + static_cast<int>(i));
  abort();
  throw RunError(fmt::format(
      "NCCL {} did not finish within {:g} s on {} (host {}); a peer rank may have died or be unreachable: check "
      "that every rank started and that the hosts can reach each other (NCCL_DEBUG=INFO shows where it stopped, "
      "NCCL_SOCKET_IFNAME picks the interface)",
      what, settings_.timeout_s, join_ranks(ranks), settings_.host));
}

void CommSet::poll_pause() const { std::this_thread::sleep_for(std::chrono::microseconds(50)); }

void CommSet::wait_ready(const std::vector<Comm>& set, const char* what) {
  const auto deadline = after_seconds(settings_.timeout_s);
  for (;;) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < set.size(); ++i) {
      if (set[i] == nullptr) continue;
      int state = kSuccess;
      if (const int r = api_.async_error(set[i], &state); r != kSuccess) state = r;
      if (state == kInProgress) pending.push_back(i);
      else if (state != kSuccess) fail(what, i, state);
    }
    if (pending.empty()) return;
    if (Clock::now() > deadline) timed_out(what, pending);
    poll_pause();
  }
}

void CommSet::init(int nranks, const UniqueId& id, int first_rank, std::size_t locals,
                   const std::function<void(std::size_t)>& select) {
  nranks_ = nranks;
  first_ = first_rank;
  comms_.assign(locals, nullptr);
  grouped("communicator init", [&](std::size_t i) {
    select(i);
    return api_.init_rank(&comms_[i], nranks, id, first_rank + static_cast<int>(i), settings_.blocking);
  });
  wait_ready(comms_, "communicator init");
}

std::unique_ptr<CommSet> CommSet::split(int color, const std::function<void(std::size_t)>& select) {
  auto child = std::make_unique<CommSet>(api_, settings_);
  child->comms_.assign(comms_.size(), nullptr);
  try {
    grouped("communicator split", [&](std::size_t i) {
      select(i);
      return api_.split(comms_[i], color, first_ + static_cast<int>(i), &child->comms_[i], settings_.blocking);
    });
    // The split's progress shows on the parents; the children are written when it ends.
    wait_ready(comms_, "communicator split");
    for (std::size_t i = 0; i < child->comms_.size(); ++i)
      if (child->comms_[i] == nullptr)
        throw RunError(fmt::format("NCCL communicator split returned no communicator on rank {} (host {})",
                                   first_ + static_cast<int>(i), settings_.host));
    child->first_ = first_;  // for messages until the child's own rank is known
    child->wait_ready(child->comms_, "communicator split");
    child->check(api_.count(child->comms_[0], &child->nranks_), "ncclCommCount", 0);
    child->check(api_.user_rank(child->comms_[0], &child->first_), "ncclCommUserRank", 0);
  } catch (...) {
    child->abort();
    abort();  // a split that failed or hung leaves the parents unusable
    throw;
  }
  return child;
}

void CommSet::grouped(const char* what, const std::function<int(std::size_t)>& call) {
  check(api_.group_start(), "ncclGroupStart", 0);
  std::size_t i = 0;
  try {
    for (; i < comms_.size(); ++i)
      if (const int r = call(i); r != kSuccess && r != kInProgress) throw NcclCallFailed{r};
  } catch (const NcclCallFailed& e) {
    api_.group_end();  // NCCL drops the whole group; the thread must not stay inside it
    fail(what, i, e.result);
  } catch (...) {
    api_.group_end();
    abort();
    throw;
  }
  check(api_.group_end(), what, 0);
}

void CommSet::launch(const std::function<void(std::size_t, Comm)>& enqueue, const char* what) {
  check(api_.group_start(), "ncclGroupStart", 0);
  try {
    for (std::size_t i = 0; i < comms_.size(); ++i) enqueue(i, comms_[i]);
  } catch (...) {
    api_.group_end();
    abort();  // part of the group may have been launched: the communicators are out of step now
    throw;
  }
  if (check(api_.group_end(), what, 0) == kInProgress) {
    // A blocking communicator that answers in progress is not blocking (a configuration file or
    // NCCL_COMM_BLOCKING overrode it): every timed call would include NCCL's background job.
    if (settings_.blocking) {
      abort();
      throw RunError(fmt::format(
          "NCCL {} returned ncclInProgress on a blocking communicator (host {}): the communicators are "
          "non-blocking, so every timed call would include NCCL's background thread; check NCCL_COMM_BLOCKING in "
          "NCCL_CONF_FILE, ~/.nccl.conf and /etc/nccl.conf",
          what, settings_.host));
    }
    wait_ready(comms_, what);
  }
}

void CommSet::wait(const std::function<bool()>& done, const char* what) {
  const auto deadline = after_seconds(settings_.timeout_s);
  for (;;) {
    const bool finished = done();
    // A dead peer shows up here rather than as a stream that never finishes.
    for (std::size_t i = 0; i < comms_.size(); ++i) {
      int state = kSuccess;
      if (const int r = api_.async_error(comms_[i], &state); r != kSuccess) state = r;
      if (state != kSuccess && state != kInProgress) fail(what, i, state);
    }
    if (finished) return;
    if (Clock::now() > deadline) {
      std::vector<std::size_t> all(comms_.size());
      for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
      timed_out(what, all);
    }
    std::this_thread::yield();
  }
}

void CommSet::abort() noexcept {
  for (Comm& c : comms_) {
    if (c != nullptr) api_.abort(c);
    c = nullptr;
  }
}

void CommSet::release() noexcept {
  // Finalize all in one group (a blocking finalize waits for every rank, so local ones finalized one
  // by one would wait on each other), then destroy those that finished; abort any that failed or
  // did not finish in time.
  std::vector<bool> ok(comms_.size(), false);
  if (std::none_of(comms_.begin(), comms_.end(), [](Comm c) { return c != nullptr; })) return;
  api_.group_start();
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    if (comms_[i] == nullptr) continue;
    const int r = api_.finalize(comms_[i]);
    ok[i] = r == kSuccess || r == kInProgress;
  }
  if (const int r = api_.group_end(); r != kSuccess && r != kInProgress) ok.assign(ok.size(), false);
  const auto deadline = after_seconds(settings_.timeout_s);
  for (;;) {
    bool pending = false;
    for (std::size_t i = 0; i < comms_.size(); ++i) {
      if (comms_[i] == nullptr || !ok[i]) continue;
      int state = kSuccess;
      if (api_.async_error(comms_[i], &state) != kSuccess) state = -1;
      if (state == kInProgress) pending = true;
      else if (state != kSuccess) ok[i] = false;
    }
    if (!pending || Clock::now() > deadline) break;
    poll_pause();
  }
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    if (comms_[i] == nullptr) continue;
    int state = -1;
    if (ok[i]) api_.async_error(comms_[i], &state);
    if (state == kSuccess) api_.destroy(comms_[i]);
    else api_.abort(comms_[i]);
    comms_[i] = nullptr;
  }
}

}  // namespace collbench::nccl
