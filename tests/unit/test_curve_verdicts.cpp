// CURVE_DIP on made-up curves: a dip both placements share is named at the depth both agree on; a
// dip in one placement only is noise; a rising curve is healthy.
#include <gtest/gtest.h>

#include <cmath>

#include "reports/run/curve_verdicts.h"

namespace collbench::report {
namespace {

// 64 KiB .. 16 MiB, busbw rising with log size; `dip` scales the 1 MiB point of that placement.
std::vector<CaseResult> curve(double oop_dip, double ip_dip) {
  std::vector<CaseResult> out;
  for (const Placement p : {Placement::OutOfPlace, Placement::InPlace})
    for (std::uint64_t bytes = 64 << 10; bytes <= 16u << 20; bytes *= 2) {
      CaseResult c;
      c.op = "all_reduce";
      c.dtype = "float";
      c.placement = p;
      c.bytes = bytes;
      c.busbw_gbs = 10 * std::log2(static_cast<double>(bytes) / 1024.0);
      if (bytes == 1u << 20) c.busbw_gbs *= p == Placement::OutOfPlace ? oop_dip : ip_dip;
      out.push_back(c);
    }
  return out;
}

TEST(CurveDip, BothPlacementsDippingIsNamedAtTheShallowerDepth) {
  const auto f = curve_dip_findings(curve(0.40, 0.45));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "CURVE_DIP");
  // 1 MiB sits on the line through 512 KiB and 2 MiB; out-of-place is 60% below it, in-place 55%.
  EXPECT_NE(f[0].message.find("1 MiB (55% below), against the curve through 512 KiB and 2 MiB"), std::string::npos)
      << f[0].message;
  EXPECT_NE(f[0].message.find("in both placements"), std::string::npos) << f[0].message;
}

TEST(CurveDip, ADipInOnePlacementOnlyIsNotNamed) {
  EXPECT_TRUE(curve_dip_findings(curve(0.40, 1.0)).empty());
  EXPECT_TRUE(curve_dip_findings(curve(1.0, 1.0)).empty());
}

}  // namespace
}  // namespace collbench::report
