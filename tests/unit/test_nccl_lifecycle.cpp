// The NCCL communicator lifecycle against a double that behaves like NCCL 2.23+: non-blocking calls
// return ncclInProgress, split children appear only when the parent's job ends, a call may never
// complete and an asynchronous error may arrive while streams run.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "bench/errors.h"
#include "bench/nccl_lifecycle.h"

namespace collbench::nccl {
namespace {

constexpr int kInternalError = 3;
constexpr int kForever = 1 << 30;

struct FakeComm {
  int id = 0;
  int busy_polls = 0;       // async_error answers ncclInProgress this many more times
  int error = kSuccess;     // then this
  Comm* pending_child = nullptr;  // a split's child, written when busy_polls runs out
  bool finalize_fails = false;
};

class FakeNccl final : public Api {
 public:
  int init_polls = 0;    // non-blocking init stays in progress this long
  int split_polls = 0;   // non-blocking split: the child appears after this many parent polls
  int launch_polls = 0;  // non-blocking group end: in progress this long
  int fail_init_rank = -1;
  int child_count = 4, child_rank = 2;

  std::map<Comm, FakeComm> comms;
  std::vector<int> aborted, destroyed, finalized;
  std::vector<int> finalize_groups;  // the group each finalize was issued in (0: none)
  int async_calls = 0, group_ends = 0, depth = 0, groups = 0;

  FakeComm& of(Comm c) { return comms.at(c); }
  Comm make() {
    auto* key = reinterpret_cast<Comm>(static_cast<std::uintptr_t>(next_ * 16));
    comms[key] = FakeComm{next_++};
    return key;
  }

  int group_start() override {
    if (depth++ == 0) ++groups;
    return kSuccess;
  }
  int group_end() override {
    ++group_ends;
    --depth;
    if (!in_progress_) return kSuccess;
    in_progress_ = false;
    return kInProgress;
  }
  int init_rank(Comm* comm, int, const UniqueId&, int rank, bool blocking) override {
    if (rank == fail_init_rank) return kInternalError;
    *comm = make();  // NCCL hands out the handle at once; its state tells when it is ready
    if (blocking) return kSuccess;
    of(*comm).busy_polls = init_polls;
    in_progress_ = true;
    return kInProgress;
  }
  int split(Comm parent, int, int, Comm* child, bool blocking) override {
    if (blocking) {
      *child = make();
      return kSuccess;
    }
    *child = nullptr;
    of(parent).busy_polls = split_polls;
    of(parent).pending_child = child;
    in_progress_ = true;
    return kInProgress;
  }
  int async_error(Comm c, int* state) override {
    ++async_calls;
    FakeComm& f = of(c);
    if (f.busy_polls > 0) {
      --f.busy_polls;
      *state = kInProgress;
      return kSuccess;
    }
    if (f.pending_child != nullptr) {
      *f.pending_child = make();
      f.pending_child = nullptr;
    }
    *state = f.error;
    return kSuccess;
  }
  int count(Comm, int* n) override {
    *n = child_count;
    return kSuccess;
  }
  int user_rank(Comm, int* r) override {
    *r = child_rank;
    return kSuccess;
  }
  int finalize(Comm c) override {
    finalized.push_back(of(c).id);
    finalize_groups.push_back(depth > 0 ? groups : 0);
    return of(c).finalize_fails ? kInternalError : kSuccess;
  }
  int destroy(Comm c) override {
    destroyed.push_back(of(c).id);
    return kSuccess;
  }
  int abort(Comm c) override {
    aborted.push_back(of(c).id);
    return kSuccess;
  }
  std::string describe(int result, Comm) override { return "fake result " + std::to_string(result); }

  // Every live communicator stays in progress for `polls` more polls (a group end in progress).
  void busy_all(int polls) {
    for (auto& [k, f] : comms) f.busy_polls = polls;
    in_progress_ = true;
  }

 private:
  int next_ = 1;
  bool in_progress_ = false;
};

CommSettings settings(bool blocking, double timeout_s = 5.0) { return {blocking, timeout_s, "hostA"}; }
void no_select(std::size_t) {}

TEST(NcclLifecycle, NonBlockingInitWaitsUntilEveryCommunicatorIsReady) {
  FakeNccl nccl;
  nccl.init_polls = 3;
  CommSet set(nccl, settings(false));
  set.init(8, UniqueId{}, 4, 2, no_select);
  ASSERT_EQ(set.size(), 2u);
  for (std::size_t i = 0; i < set.size(); ++i) {
    ASSERT_NE(set.comm(i), nullptr);
    EXPECT_EQ(nccl.of(set.comm(i)).busy_polls, 0) << "init returned while communicator " << i << " was in progress";
  }
  EXPECT_EQ(set.nranks(), 8);
  EXPECT_EQ(set.first_rank(), 4);
}

TEST(NcclLifecycle, SplitWaitsOnTheParentsThenReadsTheDelayedChildren) {
  FakeNccl nccl;
  CommSet parent(nccl, settings(false));
  parent.init(8, UniqueId{}, 4, 2, no_select);
  nccl.split_polls = 5;
  auto child = parent.split(1, no_select);
  ASSERT_EQ(child->size(), 2u);
  for (std::size_t i = 0; i < child->size(); ++i) EXPECT_NE(child->comm(i), nullptr) << "child " << i;
  EXPECT_EQ(child->nranks(), 4);
  EXPECT_EQ(child->first_rank(), 2);
  EXPECT_TRUE(nccl.aborted.empty());
}

TEST(NcclLifecycle, HungSplitIsAbortedThroughItsParentsAndNamesRanksAndHost) {
  FakeNccl nccl;
  CommSet parent(nccl, settings(false, 0.05));
  parent.init(8, UniqueId{}, 4, 2, no_select);
  const std::vector<int> parents{nccl.of(parent.comm(0)).id, nccl.of(parent.comm(1)).id};
  nccl.split_polls = kForever;
  try {
    parent.split(0, no_select);
    FAIL() << "a split that never ends must throw";
  } catch (const RunError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("split did not finish within 0.05 s"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ranks 4, 5"), std::string::npos) << msg;
    EXPECT_NE(msg.find("hostA"), std::string::npos) << msg;
  }
  EXPECT_EQ(nccl.aborted, parents);
  EXPECT_EQ(parent.comm(0), nullptr);
}

TEST(NcclLifecycle, BlockingLaunchDoesNothingButTheGroup) {
  FakeNccl nccl;
  CommSet set(nccl, settings(true));
  set.init(2, UniqueId{}, 0, 2, no_select);
  const int polls_before = nccl.async_calls;
  int enqueued = 0;
  for (int k = 0; k < 100; ++k) set.launch([&](std::size_t, Comm) { ++enqueued; }, "collective");
  EXPECT_EQ(enqueued, 200);
  EXPECT_EQ(nccl.async_calls, polls_before) << "a blocking launch must not poll between timed calls";
}

TEST(NcclLifecycle, NonBlockingLaunchInProgressIsWaitedFor) {
  FakeNccl nccl;
  CommSet set(nccl, settings(false));
  set.init(2, UniqueId{}, 0, 2, no_select);
  set.launch(
      [&](std::size_t, Comm) {
        nccl.busy_all(4);  // the group's background job runs on
      },
      "collective");
  for (std::size_t i = 0; i < set.size(); ++i) EXPECT_EQ(nccl.of(set.comm(i)).busy_polls, 0);
}

TEST(NcclLifecycle, CallThatNeverCompletesIsAbortedAfterTheTimeout) {
  FakeNccl nccl;
  CommSet set(nccl, settings(true, 0.05));
  set.init(4, UniqueId{}, 2, 2, no_select);
  try {
    set.wait([] { return false; }, "collective");
    FAIL() << "a stream that never finishes must throw";
  } catch (const RunError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("collective did not finish within 0.05 s on ranks 2, 3 (host hostA)"), std::string::npos)
        << msg;
  }
  EXPECT_EQ(nccl.aborted.size(), 2u);
  EXPECT_TRUE(nccl.destroyed.empty());
}

TEST(NcclLifecycle, AsyncErrorWhileStreamsRunAbortsAllAndNamesTheRank) {
  FakeNccl nccl;
  CommSet set(nccl, settings(true));
  set.init(8, UniqueId{}, 4, 2, no_select);
  nccl.of(set.comm(1)).error = kRemoteError;
  try {
    set.wait([] { return false; }, "collective");
    FAIL() << "an asynchronous error must throw";
  } catch (const RunError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("NCCL collective failed on rank 5 (host hostA): fake result 6"), std::string::npos) << msg;
    EXPECT_NE(msg.find("a peer rank failed"), std::string::npos) << msg;
  }
  EXPECT_EQ(nccl.aborted.size(), 2u);
}

TEST(NcclLifecycle, FailedInitAbortsTheCommunicatorsAlreadyMade) {
  FakeNccl nccl;
  nccl.fail_init_rank = 5;
  CommSet set(nccl, settings(false));
  EXPECT_THROW(set.init(8, UniqueId{}, 4, 2, no_select), RunError);
  EXPECT_EQ(nccl.aborted, std::vector<int>{1});
}

TEST(NcclLifecycle, ReleaseDestroysFinishedCommunicatorsAndAbortsFailedOnes) {
  FakeNccl nccl;
  {
    CommSet set(nccl, settings(false));
    set.init(2, UniqueId{}, 0, 2, no_select);
    nccl.of(set.comm(0)).busy_polls = 3;  // finalize in progress for a while
    nccl.of(set.comm(1)).finalize_fails = true;
  }
  EXPECT_EQ(nccl.finalized, (std::vector<int>{1, 2}));
  EXPECT_EQ(nccl.destroyed, std::vector<int>{1});
  EXPECT_EQ(nccl.aborted, std::vector<int>{2});
}

// A blocking finalize waits for every rank: the local communicators must be finalized in one group,
// or the first would wait for the second, which this thread never reaches.
TEST(NcclLifecycle, BlockingReleaseFinalizesEveryLocalCommunicatorInOneGroup) {
  FakeNccl nccl;
  {
    CommSet set(nccl, settings(true));
    set.init(4, UniqueId{}, 0, 3, no_select);
  }
  ASSERT_EQ(nccl.finalize_groups.size(), 3u);
  EXPECT_NE(nccl.finalize_groups[0], 0) << "finalize outside a group";
  for (int g : nccl.finalize_groups) EXPECT_EQ(g, nccl.finalize_groups[0]) << "finalizes split over groups";
  EXPECT_EQ(nccl.depth, 0);
  EXPECT_EQ(nccl.destroyed, (std::vector<int>{1, 2, 3}));
}

// A throw while the group is open (cudaSetDevice for the second GPU) must close the group first,
// or the aborts that follow would only be queued in it.
TEST(NcclLifecycle, GroupIsClosedWhenSelectingADeviceThrows) {
  FakeNccl nccl;
  CommSet set(nccl, settings(true));
  auto select = [](std::size_t i) {
    if (i == 1) throw RunError("cudaSetDevice failed");
  };
  EXPECT_THROW(set.init(4, UniqueId{}, 0, 2, select), RunError);
  EXPECT_EQ(nccl.depth, 0);
  EXPECT_EQ(nccl.aborted, std::vector<int>{1});
}

TEST(NcclLifecycle, LaunchThatThrowsHalfwayClosesTheGroupAndAborts) {
  FakeNccl nccl;
  CommSet set(nccl, settings(true));
  set.init(4, UniqueId{}, 0, 2, no_select);
  EXPECT_THROW(set.launch(
                   [](std::size_t i, Comm) {
                     if (i == 1) throw RunError("ncclAllReduce failed");
                   },
                   "collective"),
               RunError);
  EXPECT_EQ(nccl.depth, 0);
  EXPECT_EQ(nccl.aborted.size(), 2u);
}

}  // namespace
}  // namespace collbench::nccl
