#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "bench/host_load.h"
#include "reports/pairs/group_verdicts.h"

namespace collbench {
namespace {

TEST(HostLoad, ProcsRunningFromProcStat) {
  EXPECT_EQ(procs_running("cpu  1 2 3\nctxt 99\nprocs_running 7\nprocs_blocked 0\n"), 7);
  EXPECT_EQ(procs_running("procs_running 0"), 0);
  EXPECT_EQ(procs_running("cpu 1\nprocs_blocked 2\n"), std::nullopt);
  EXPECT_EQ(procs_running("procs_running x\n"), std::nullopt);
  EXPECT_EQ(procs_running("procs_running 3 4\n"), std::nullopt);
  EXPECT_GT(runnable_per_core(), 0) << "this process itself is running";
}

TEST(HostLoad, RunqueueWaitIsTheSecondSchedstatFieldInSeconds) {
  EXPECT_DOUBLE_EQ(*runqueue_wait_s("256049 1500000000 12\n"), 1.5);
  EXPECT_FALSE(runqueue_wait_s("").has_value());
  EXPECT_FALSE(runqueue_wait_s("12").has_value());
  EXPECT_TRUE(runqueue_wait_s().has_value());  // Linux with schedstats
}

TEST(HostLoad, CpuWaitShareIsAShareOfTheInterval) {
  EXPECT_DOUBLE_EQ(cpu_wait_share(1.0, 1.25, 1.0), 0.25);
  EXPECT_DOUBLE_EQ(cpu_wait_share(1.0, 1.0, 1.0), 0);
  EXPECT_DOUBLE_EQ(cpu_wait_share(1.0, 2.0000001, 1.0), 1) << "the two clocks differ by a rounding";
  EXPECT_DOUBLE_EQ(cpu_wait_share(2.0, 1.0, 1.0), 0);
  EXPECT_EQ(cpu_wait_share(std::nullopt, 1.0, 1.0), -1);
  EXPECT_EQ(cpu_wait_share(1.0, std::nullopt, 1.0), -1);
  EXPECT_EQ(cpu_wait_share(1.0, 1.0, 0), -1);
}

// A thread preempted while it reads /proc after a loop of microseconds: the wait read then holds
// milliseconds from after the loop. Over the loop's wall time alone that was a share of 10 and more.
std::optional<double> preempted_while_reading() {
  static double waited = 0;
  std::this_thread::sleep_for(std::chrono::milliseconds(3));  // as long off the CPU...
  waited += 0.003;                                              // ...all of it waiting for one
  return waited;
}

TEST(HostLoad, AWaitAroundTheReadingsNeverMakesTheShareOfAShortLoopExceedOne) {
  CpuWaitMeter meter(&preempted_while_reading);
  meter.start();
  const double share = meter.stop();  // a loop of nothing
  EXPECT_GT(share, 0.3);
  EXPECT_LE(share, 1);

  CpuWaitMeter real;
  real.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double s = real.stop();
  EXPECT_GE(s, 0);
  EXPECT_LE(s, 1);
}

TEST(HostLoad, ASlowNodeOnOversubscribedCpusIsInDoubtNotAccused) {
  using K = report::GroupVerdict::Kind;
  report::GroupJudgement j;
  j.groups = {{K::Healthy, 0, ""}, {K::Slow, 0.69, ""}, {K::Slow, 0.5, ""}};
  report::excuse_busy_hosts(j, {4.5, 4.5, 0.8});
  EXPECT_EQ(j.groups[0].kind, K::Healthy);
  EXPECT_EQ(j.groups[1].kind, K::Inconclusive);
  EXPECT_NE(j.groups[1].reason.find("4.5 runnable tasks per core"), std::string::npos) << j.groups[1].reason;
  EXPECT_EQ(j.groups[2].kind, K::Slow) << "a quiet host's slow node stays slow";
}

}  // namespace
}  // namespace collbench
