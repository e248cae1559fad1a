// summarize_case's rank and node medians (a sorting network up to 32 iterations) against
// median(): the same values, to the bit, for every count of iterations, ties included.
#include <gtest/gtest.h>

#include <random>

#include "reports/core/case_summary.h"
#include "reports/core/stats.h"

namespace collbench::report {
namespace {

TEST(SummaryMedians, RankAndNodeMediansAreMedianForEveryCount) {
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> coarse(1, 4);
  std::lognormal_distribution<double> noise(0, 0.2);
  for (int iters = 1; iters <= 40; ++iters) {
    SCOPED_TRACE(iters);
    std::vector<std::vector<double>> samples(12, std::vector<double>(static_cast<std::size_t>(iters)));
    for (std::size_t r = 0; r < samples.size(); ++r)
      for (double& x : samples[r]) x = r % 3 == 0 ? 1e-3 * coarse(gen) : 1e-3 * noise(gen);  // ties on some ranks
    std::vector<NodeInfo> nodes(3);
    for (int r = 0; r < 12; ++r) nodes[static_cast<std::size_t>(r / (iters % 5 + 1) % 3)].ranks.push_back(r);
    RawCase raw;
    raw.op = "all_reduce";
    raw.bytes = 1 << 20;
    raw.samples_s = &samples;
    const CaseResult c = summarize_case(raw, RankReduce::Mean, nodes);
    ASSERT_EQ(c.rank_median_us.size(), samples.size());
    for (std::size_t r = 0; r < samples.size(); ++r) EXPECT_EQ(c.rank_median_us[r], median(samples[r]) * 1e6) << r;
    ASSERT_EQ(c.node_median_us.size(), nodes.size());
    for (std::size_t v = 0; v < nodes.size(); ++v) {
      std::vector<double> m;
      for (int r : nodes[v].ranks) m.push_back(c.rank_median_us[static_cast<std::size_t>(r)]);
      EXPECT_EQ(c.node_median_us[v].median_us, median(m)) << v;
    }
  }
}

}  // namespace
}  // namespace collbench::report
