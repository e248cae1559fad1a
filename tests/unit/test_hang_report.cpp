#include <gtest/gtest.h>

#include "launcher/job/hang_report.h"

namespace {

using collbench::odd_ones;
using Posted = std::vector<std::optional<std::string>>;

TEST(HangReport, TheSilentAndTheOnesAtAnotherStepAreTheOddOnes) {
  // Rank 2 never reached the barrier the others wait at.
  EXPECT_EQ(odd_ones(Posted{"x, waiting", "x, waiting", "x, setting up", "x, waiting"}), std::vector<int>{2});
  // Rank 1 is stopped: it posted nothing.
  EXPECT_EQ(odd_ones(Posted{"x, timed", std::nullopt, "x, timed"}), std::vector<int>{1});
  EXPECT_EQ(odd_ones(Posted{"x, timed", std::nullopt, "x, setup", "x, timed", "x, timed"}), (std::vector<int>{1, 2}));
}

TEST(HangReport, NoMajorityAccusesOnlyTheSilent) {
  // Everyone in the same step: a collective that is stuck as a whole, nobody to name.
  EXPECT_TRUE(odd_ones(Posted{"x, timed", "x, timed", "x, timed"}).empty());
  // Two ranks, two steps: neither is the reference.
  EXPECT_TRUE(odd_ones(Posted{"x, waiting", "x, setting up"}).empty());
  EXPECT_EQ(odd_ones(Posted{"a", "b", std::nullopt}), std::vector<int>{2});
}

TEST(HangReport, TheFindingNamesTheSuspectsAndOneIsTheSubject) {
  const auto one = collbench::hang_finding(0, "all_reduce 4 B, timed iterations", 10, {{2, "node2", ""}});
  EXPECT_EQ(one.code, "COLLECTIVE_HANG");
  EXPECT_NE(one.message.find("rank 2 (host node2) did not answer: it is stopped, frozen or cut off from the others"),
            std::string::npos)
      << one.message;
  EXPECT_EQ(one.subject.kind, collbench::report::SubjectKind::Rank);
  const auto two = collbench::hang_finding(0, "x", 10, {{2, "node2", ""}, {3, "node3", "x, setting up"}});
  EXPECT_NE(two.message.find("rank 3 (host node3) is still at x, setting up"), std::string::npos) << two.message;
  EXPECT_EQ(two.subject.kind, collbench::report::SubjectKind::World);
  EXPECT_EQ(collbench::hang_finding(0, "x", 10, {}).subject.kind, collbench::report::SubjectKind::World);
}

}  // namespace
