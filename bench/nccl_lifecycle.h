// The communicators one process drives (one per local GPU) through their whole life: init, split,
// each call's launch, the wait for its streams, asynchronous errors, abort, finalize and destroy.
// Every wait is bounded by the timeout; on a failure or a timeout the communicators are aborted and
// RunError names the ranks and the host.
//
// collbench creates blocking communicators, as nccl-tests does: from NCCL 2.23 every group on a
// non-blocking communicator starts a background thread and returns ncclInProgress (group.cc,
// ncclGroupEndInternal), a cost that would sit inside each timed call. The lifecycle still handles
// ncclInProgress wherever NCCL may return it, so it stays right if a communicator is non-blocking;
// a launch on communicators created blocking that answers ncclInProgress is refused (RunError):
// NCCL_COMM_BLOCKING or an nccl.conf made them non-blocking behind collbench's back.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/nccl_api.h"

namespace collbench::nccl {

struct CommSettings {
  bool blocking = true;
  double timeout_s = 300.0;  // bound of every wait
  std::string host;          // named in messages
};

class CommSet {
 public:
  CommSet(Api& api, CommSettings settings);
  ~CommSet();  // release()
  CommSet(const CommSet&) = delete;
  CommSet& operator=(const CommSet&) = delete;

  // One communicator per local rank, all in one group: local i is rank first_rank + i of nranks.
  // `select(i)` runs before local i's call (it makes local i's GPU current).
  void init(int nranks, const UniqueId& id, int first_rank, std::size_t locals,
            const std::function<void(std::size_t)>& select);
  // ncclCommSplit of every local communicator, in one group; ranks keep their order. With a
  // non-blocking parent the children exist only once the parents leave ncclInProgress, so the
  // parents are polled first; a split that does not finish in time is aborted through them.
  std::unique_ptr<CommSet> split(int color, const std::function<void(std::size_t)>& select);

  // One group of calls: `enqueue(i, comm)` for every local rank, then ncclGroupEnd. Nothing else
  // happens on a blocking communicator; an ncclInProgress result is waited for (bounded).
  void launch(const std::function<void(std::size_t, Comm)>& enqueue, const char* what);
  // Polls `done` (the streams) and every communicator's asynchronous error until `done` says yes.
  void wait(const std::function<bool()>& done, const char* what);

  void abort() noexcept;    // every communicator, now; they are gone afterwards
  void release() noexcept;  // finalize all (bounded), destroy those that finished, abort the rest

  std::size_t size() const { return comms_.size(); }
  Comm comm(std::size_t i) const { return comms_[i]; }
  int nranks() const { return nranks_; }
  int first_rank() const { return first_; }

 private:
  // `call(i)` for every local rank between ncclGroupStart and ncclGroupEnd. The group is closed on
  // any failure, and a failure aborts every communicator and throws, naming `what`.
  void grouped(const char* what, const std::function<int(std::size_t)>& call);
  // ncclSuccess/ncclInProgress pass; anything else aborts every communicator and throws.
  int check(int result, const char* call, std::size_t local);
  // Until no communicator of `set` reports ncclInProgress; `abort_set` on failure or timeout.
  void wait_ready(const std::vector<Comm>& set, const char* what);
  [[noreturn]] void fail(const char* what, std::size_t local, int result);
  [[noreturn]] void timed_out(const char* what, const std::vector<std::size_t>& pending);
  void poll_pause() const;

  Api& api_;
  CommSettings settings_;
  std::vector<Comm> comms_;
  int nranks_ = 0;
  int first_ = 0;
};

}  // namespace collbench::nccl
