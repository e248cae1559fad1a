#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <vector>

#include "bench/stopping.h"

namespace collbench {

TEST(Stopping, FixedCountRunsExactlyN) {
  IterPolicy p;
  p.fixed = 20;
  EXPECT_EQ(next_batch(p, 0), 20);
  EXPECT_EQ(next_batch(p, 20), 0);
  std::vector<double> s(19, 1.0);
  EXPECT_FALSE(decide_stop(p, s, 1).stop);
  s.push_back(1.0);
  EXPECT_TRUE(decide_stop(p, s, 1).stop);
}

TEST(Stopping, RelativeStandardError) {
  EXPECT_TRUE(std::isinf(relative_standard_error(std::vector<double>{1.0})));
  EXPECT_DOUBLE_EQ(relative_standard_error(std::vector<double>{2, 2, 2, 2}), 0.0);
  // mean 2, sample variance 4/3, n 4: sqrt(4/3 / 4) / 2.
  EXPECT_DOUBLE_EQ(relative_standard_error(std::vector<double>{1, 1, 3, 3}), std::sqrt(1.0 / 3.0) / 2);
}

TEST(Stopping, AdaptiveNeedsMinimumSamplesAndTimeThenQuietData) {
  IterPolicy p;
  p.adaptive = true;
  p.min_samples = 10;
  p.min_time_s = 0.5;
  p.max_time_s = 5;
  p.max_noise = 0.01;
  const std::vector<double> quiet(9, 0.1);
  EXPECT_FALSE(decide_stop(p, quiet, 0.9).stop) << "below min_samples";
  const std::vector<double> quiet10(10, 0.1);
  EXPECT_FALSE(decide_stop(p, quiet10, 0.4).stop) << "below min_time";
  const auto d = decide_stop(p, quiet10, 1.0);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason, StopReason::Converged);
  std::vector<double> noisy;
  for (int i = 0; i < 40; ++i) noisy.push_back(i % 2 ? 0.1 : 0.3);
  EXPECT_FALSE(decide_stop(p, noisy, 1.0).stop) << "10% noise is above 1%";
  const auto cap = decide_stop(p, noisy, 5.0);
  EXPECT_TRUE(cap.stop);
  EXPECT_EQ(cap.reason, StopReason::TimeCap);
}

TEST(Stopping, AdaptiveBatchesReachMinimumThenDouble) {
  IterPolicy p;
  p.adaptive = true;
  p.min_samples = 10;
  EXPECT_EQ(next_batch(p, 0), 10);
  EXPECT_EQ(next_batch(p, 10), 10);
  EXPECT_EQ(next_batch(p, 40), 40);
  EXPECT_EQ(next_batch(p, 100000), 1000);
}

TEST(Stopping, BatchesEndNearTheTimeCapAndAtTheCount) {
  IterPolicy p;
  p.adaptive = true;
  p.min_samples = 3;
  p.max_time_s = 1.0;
  // 3 samples in 0.3 s: 0.1 s each, 0.7 s left, so 7 more rather than doubling past the cap.
  EXPECT_EQ(next_batch(p, 3, 0.3), 3);
  EXPECT_EQ(next_batch(p, 6, 0.3), 6);
  EXPECT_EQ(next_batch(p, 20, 0.8), 5);
  EXPECT_EQ(next_batch(p, 20, 2.0), 1) << "past the cap a batch is never empty; decide_stop ends it";
  p.max_samples = 22;
  EXPECT_EQ(next_batch(p, 20, 0.1), 2);
  const std::vector<double> noisy{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2};
  const auto d = decide_stop(p, noisy, 0.1);
  EXPECT_TRUE(d.stop);
  EXPECT_EQ(d.reason, StopReason::Count);
  EXPECT_EQ(stop_reason_name(d.reason), "max_samples");
  EXPECT_FALSE(decide_stop(p, std::span<const double>(noisy).first(21), 0.1).stop);
}

}  // namespace collbench

TEST(Stopping, PacedBatchesFitAQuarterOfTheTimeout) {
  // Nothing seen yet: one call, to see.
  EXPECT_EQ(collbench::paced_batch(20, 0.0, 300), 1);
  // Fits: the whole count at once (the usual case, unchanged).
  EXPECT_EQ(collbench::paced_batch(20, 0.01, 300), 20);
  // 1,000 calls of 1 s under --timeout 300: pieces of 75 s.
  EXPECT_EQ(collbench::paced_batch(1000, 1.0, 300), 75);
  // A call longer than the quarter still runs, one at a time.
  EXPECT_EQ(collbench::paced_batch(1000, 200.0, 300), 1);
  EXPECT_EQ(collbench::paced_batch(1, 500.0, 300), 1);
  EXPECT_EQ(collbench::paced_batch(0, 1.0, 300), 0);
  // Adaptive ranks other than 0 ask for "anything": only the pace bounds them.
  EXPECT_EQ(collbench::paced_batch(INT32_MAX, 0.5, 20), 10);
}
