#include <gtest/gtest.h>

#include "reports/core/suggest.h"

namespace collbench::report {
namespace {

TEST(Suggest, EditDistanceIgnoresCase) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("P5.48XLARGE", "p5.48xlarge"), 0u);
  EXPECT_EQ(edit_distance("allreduc", "all_reduce"), 2u);
}

TEST(Suggest, NearestKnownNameWhenItLooksLikeATypo) {
  const std::vector<std::string> types{"p4d.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge"};
  EXPECT_EQ(did_you_mean("p5.48xlarg", types), "p5.48xlarge");
  EXPECT_EQ(did_you_mean("p5n.48xlarge", types), "p5.48xlarge");  // ties go to the first listed
  EXPECT_EQ(did_you_mean("p4d24xlarge", types), "p4d.24xlarge");
  EXPECT_EQ(did_you_mean("banana", types), std::nullopt);
  EXPECT_EQ(did_you_mean("x", {}), std::nullopt);
}

}  // namespace
}  // namespace collbench::report
