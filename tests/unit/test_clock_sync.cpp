#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "bench/clock_sync.h"

namespace collbench {
namespace {

// Processes as threads: one inbox of values per receiver (sync_clocks only talks to rank 0).
struct Mailboxes {
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<std::deque<double>> inbox;
};

class ThreadControl final : public Control {
 public:
  ThreadControl(Mailboxes& boxes, int rank) : boxes_(boxes), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(boxes_.inbox.size()); }
  void send(int to, std::span<const double> values) override {
    std::lock_guard lock(boxes_.mutex);
    for (double v : values) boxes_.inbox[static_cast<std::size_t>(to)].push_back(v);
    boxes_.ready.notify_all();
  }
  void receive(int, std::span<double> values) override {
    std::unique_lock lock(boxes_.mutex);
    auto& mine = boxes_.inbox[static_cast<std::size_t>(rank_)];
    for (double& v : values) {
      boxes_.ready.wait(lock, [&] { return !mine.empty(); });
      v = mine.front();
      mine.pop_front();
    }
  }
  // Nothing else is used by sync_clocks.
  void barrier() override { unused(); }
  bool broadcast_flag(bool) override { unused(); }
  std::vector<double> gather_to_root(std::span<const double>) override { unused(); }
  std::int64_t min(std::int64_t) override { unused(); }
  void broadcast(std::span<int>) override { unused(); }
  double broadcast(double) override { unused(); }
  std::string broadcast(const std::string&) override { unused(); }
  std::vector<std::string> gather_strings(const std::string&) override { unused(); }
  std::vector<std::string> all_gather_strings(const std::string&) override { unused(); }
  std::vector<int> all_gather(int) override { unused(); }
  [[noreturn]] void abort(int) override { std::abort(); }
  std::unique_ptr<Control> split(int) override { unused(); }

 private:
  [[noreturn]] static void unused() { throw std::logic_error("not used by sync_clocks"); }
  Mailboxes& boxes_;
  int rank_;
};

constexpr double kAhead = 5.0;
double clock_ahead() { return steady_now_s() + kAhead; }
double clock_behind() { return steady_now_s() - kAhead; }

TEST(ClockSync, OffsetsOfOtherMachinesAreMeasuredWithinTheirErrorBound) {
  // Processes 1 and 3 on machines whose clocks read 5 s ahead and behind; 2 shares rank 0's.
  const std::vector<std::string> domains{"boot-a", "boot-b", "boot-a", "boot-c"};
  const std::vector<double (*)()> clocks{steady_now_s, clock_ahead, steady_now_s, clock_behind};
  Mailboxes boxes;
  boxes.inbox.resize(domains.size());
  ClockSync on_zero;
  std::vector<std::thread> others;
  for (int p = 1; p < 4; ++p)
    others.emplace_back([&, p] {
      ThreadControl control(boxes, p);
      EXPECT_TRUE(sync_clocks(control, domains, 8, clocks[static_cast<std::size_t>(p)]).offset_s.empty());
    });
  ThreadControl zero(boxes, 0);
  on_zero = sync_clocks(zero, domains, 8, clocks[0]);
  for (auto& t : others) t.join();

  ASSERT_EQ(on_zero.offset_s.size(), 4u);
  ASSERT_EQ(on_zero.error_s.size(), 4u);
  EXPECT_EQ(on_zero.offset_s[0], 0.0);
  EXPECT_EQ(on_zero.error_s[0], 0.0);
  EXPECT_EQ(on_zero.offset_s[2], 0.0);  // one kernel, one clock: nothing to measure
  EXPECT_EQ(on_zero.error_s[2], 0.0);
  for (std::size_t p : {1u, 3u}) {
    const double truth = p == 1 ? kAhead : -kAhead;
    EXPECT_GT(on_zero.error_s[p], 0.0);
    EXPECT_LT(on_zero.error_s[p], 0.5);
    EXPECT_LE(std::abs(on_zero.offset_s[p] - truth), on_zero.error_s[p] + 1e-9)
        << "process " << p << ": offset " << on_zero.offset_s[p] << " error " << on_zero.error_s[p];
  }
}

TEST(ClockSync, ProcessesOfOneMachineShareTheFirstOnesFigures) {
  const std::vector<std::string> domains{"boot-a", "boot-b", "boot-b"};
  Mailboxes boxes;
  boxes.inbox.resize(domains.size());
  std::thread one([&] {
    ThreadControl control(boxes, 1);
    sync_clocks(control, domains, 4, clock_ahead);
  });
  std::thread two([&] {  // measured through process 1: never asked
    ThreadControl control(boxes, 2);
    sync_clocks(control, domains, 4, clock_ahead);
  });
  ThreadControl zero(boxes, 0);
  const ClockSync s = sync_clocks(zero, domains, 4);
  one.join();
  two.join();
  ASSERT_EQ(s.offset_s.size(), 3u);
  EXPECT_EQ(s.offset_s[2], s.offset_s[1]);
  EXPECT_EQ(s.error_s[2], s.error_s[1]);
  EXPECT_NEAR(s.offset_s[1], kAhead, s.error_s[1] + 1e-9);
}

}  // namespace
}  // namespace collbench
