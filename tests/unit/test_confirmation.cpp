#include <gtest/gtest.h>

#include "bench/errors.h"
#include "launcher/cli/parse.h"
#include "launcher/phases/confirmation.h"

namespace collbench {
namespace {

report::Attribution verdicts(std::vector<report::NodeVerdict::Kind> kinds, std::vector<double> scores) {
  report::Attribution a;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    report::NodeVerdict nv;
    nv.node = static_cast<int>(i);
    nv.kind = kinds[i];
    nv.score = scores[i];
    a.nodes.push_back(nv);
  }
  return a;
}

using K = report::NodeVerdict::Kind;

TEST(Confirmation, SuspectsMeetTheBestHealthyNodesAndLinksRunAlone) {
  auto a = verdicts({K::Healthy, K::Straggler, K::Healthy, K::Inconclusive, K::Healthy, K::Healthy},
                    {10, 1, 12, 5, 9, 11});
  a.slow_links.push_back({4, 5, 2, 0.8, ""});
  a.suspect_links.push_back({0, 5, 7, 0.3, ""});
  const Schedule s = confirmation_schedule({&a});
  ASSERT_FALSE(s.empty());
  // The suspects get the two best healthy nodes (2 at 12, then 5 at 11), never each other.
  EXPECT_EQ(s[0].pairs, (std::vector<std::pair<int, int>>{{1, 2}, {3, 5}}));
  // Both links again, node-disjoint per round: they share node 5, so two rounds.
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].pairs, (std::vector<std::pair<int, int>>{{0, 5}}));
  EXPECT_EQ(s[2].pairs, (std::vector<std::pair<int, int>>{{4, 5}}));
  EXPECT_EQ(check_schedule(s, 6), std::nullopt);
}

TEST(Confirmation, ANodeInDoubtOnAnyMeasureIsASuspect) {
  // fabric: healthy on latency, in doubt on bandwidth.
  const auto lat = verdicts({K::Healthy, K::Healthy, K::Healthy, K::Healthy}, {4, 3, 2, 1});
  const auto bw = verdicts({K::Healthy, K::Healthy, K::Inconclusive, K::Healthy}, {4, 3, 2, 1});
  const Schedule s = confirmation_schedule({&lat, &bw});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].pairs, (std::vector<std::pair<int, int>>{{0, 2}}));
  EXPECT_TRUE(confirmation_schedule({&lat}).empty()) << "nothing in doubt, nothing to confirm";
}

TEST(Duration, SecondsMinutesHoursAndClearErrors) {
  EXPECT_DOUBLE_EQ(parse_duration("300", "--budget"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("90s", "--budget"), 90);
  EXPECT_DOUBLE_EQ(parse_duration("5m", "--budget"), 300);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h", "--budget"), 5400);
  for (const char* bad : {"", "0", "-5", "5x", "m", "nan", "inf"}) {
    try {
      parse_duration(bad, "--budget");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("--budget"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace collbench
