// radix_median against median(): the same value, to the bit, for sets large enough to take the
// radix path, with ties, negative values, both parities, and the middle pair split across buckets.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "reports/core/radix_median.h"
#include "reports/core/stats.h"

namespace collbench::report {
namespace {

TEST(RadixMedian, AgreesWithMedianOnRandomSets) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0, 1);
  int cases = 0;
  for (std::size_t n : {std::size_t{1}, std::size_t{6}, std::size_t{4095}, std::size_t{4096}, std::size_t{4097},
                        std::size_t{10000}, std::size_t{100001}})
    for (int kind = 0; kind < 4; ++kind) {
      std::vector<double> v(n);
      for (double& x : v) {
        x = 50 + 100 * u(gen);
        if (kind == 1) x = std::round(x / 10);           // many ties
        if (kind == 2) x -= 100;                         // negative and positive
        if (kind == 3) x = u(gen) < 0.5 ? 1e-9 * x : x;  // two far-apart clusters
      }
      const std::vector<double> before = v;
      SCOPED_TRACE(testing::Message() << "n=" << n << " kind=" << kind);
      EXPECT_EQ(radix_median(v), median(v));
      EXPECT_EQ(v, before);
      ++cases;
    }
  EXPECT_EQ(cases, 28);
  EXPECT_EQ(radix_median({}), 0);
}

TEST(RadixMedian, MiddlePairInDifferentBuckets) {
  // Even count, the lower half at 1 and the upper at 1000: the two middle values lie in buckets
  // far apart, with nothing between them.
  std::vector<double> v(5000, 1.0);
  for (std::size_t i = 2500; i < v.size(); ++i) v[i] = 1000.0 + static_cast<double>(i);
  EXPECT_EQ(radix_median(v), (1.0 + 3500.0) / 2);
  EXPECT_EQ(radix_median(v), median(v));
}

}  // namespace
}  // namespace collbench::report
