// Golden tests of the findings and the summary block, and reading the count back the way
// HyperPod tooling does (the regex from the finding scheme, after stripping colour).
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "reports/core/summary.h"

namespace collbench::report {
namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const std::vector<Finding> kFindings{
    {"BUSBW_LOW", Tag::Warn, Priority::P2, "w", "references/performance-testing.md \u00a7 Multi-Node AllReduce Test"},
    {"WRONG_RESULTS", Tag::Fail, Priority::P0, "3 wrong", "references/debugging-guide.md \u00a7 7 Node Hardware Failures"},
    {"RESULTS_EXACT", Tag::Pass, Priority::None, "ok", ""},
    {"BUSBW_BELOW_THRESHOLD", Tag::Fail, Priority::P1, "slow", "references/x.md \u00a7 Y"},
    {"VERSION_INFO", Tag::Info, Priority::None, "nccl 2.28.9", ""},
};

}  // namespace

TEST(Findings, LineGrammar) {
  EXPECT_EQ(render_finding(kFindings[1], false),
            "[FAIL] WRONG_RESULTS (P0): 3 wrong \u2192 references/debugging-guide.md \u00a7 7 Node Hardware Failures");
  EXPECT_EQ(render_finding(kFindings[2], false), "[PASS] RESULTS_EXACT: ok");
  EXPECT_EQ(render_finding(kFindings[1], true).substr(0, 20), "\033[0;31m[FAIL]\033[0m WR");
  EXPECT_EQ(render_finding(kFindings[0], true).substr(0, 13), "\033[1;33m[WARN]");
  EXPECT_EQ(render_finding(kFindings[4], true).substr(0, 13), "\033[0;34m[INFO]");
}

TEST(Summary, GoldenBlockGroupedByPriority) {
  const auto l = lines(render_summary(kFindings, false));
  const std::vector<std::string> expected{
      "",
      std::string(60, '='),
      "  collbench summary",
      std::string(60, '='),
      "Issues Found:  3",
      "",
      "[P0 \u2014 Fix Immediately]",
      "  \u2192 WRONG_RESULTS: 3 wrong \u2192 references/debugging-guide.md \u00a7 7 Node Hardware Failures",
      "",
      "[P1 \u2014 Fix Soon]",
      "  \u2192 BUSBW_BELOW_THRESHOLD: slow \u2192 references/x.md \u00a7 Y",
      "",
      "[P2 \u2014 Advisory]",
      "  \u2192 BUSBW_LOW: w \u2192 references/performance-testing.md \u00a7 Multi-Node AllReduce Test",
  };
  EXPECT_EQ(l, expected);
}

TEST(Summary, HealthyRunSaysSoAndCountsZero) {
  const auto text = render_summary({kFindings[2], kFindings[4]}, false);
  EXPECT_NE(text.find("Issues Found:  0\n"), std::string::npos);
  EXPECT_NE(text.find("[PASS] HEALTHY: no issues found: the run is healthy"), std::string::npos);
  EXPECT_EQ(text.find("[P"), text.find("[PASS]")) << "no priority groups when nothing is wrong";
}

TEST(Summary, CountReadBackWithTheSchemeRegexAfterStrippingColour) {
  const std::string coloured = render_findings(kFindings, true) + render_summary(kFindings, true);
  const std::string plain = std::regex_replace(coloured, std::regex("\033\\[[0-9;]*m"), "");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(plain, m, std::regex(R"(Issues Found:\s+(\d+))")));
  EXPECT_EQ(std::stoi(m[1]), 3);
  EXPECT_EQ(count_issues(kFindings), 3);
}

}  // namespace collbench::report
