// The report page's pure parts: escaping, the charts' marks, large matrices drawn as blocks, and a
// page from a document with members missing or null.
#include <gtest/gtest.h>

#include "reports/html/page.h"
#include "reports/html/svg.h"

namespace collbench::report::html {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(Html, EscapeLeavesNoMarkupThrough) {
  EXPECT_EQ(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST(Html, ALineChartHasAPointPerValueWithItsNumberAndTheThresholdLines) {
  LineChart c{"busbw", "GB/s", {{"out_of_place", {{1024, 1.5}, {2048, 2.5}, {4096, NAN}}, 0}},
              {{2.0, "fail below 2", "fail"}}};
  const std::string svg = render(c);
  EXPECT_EQ(count(svg, "<circle"), 2u) << "a NaN is no point";
  EXPECT_NE(svg.find("<title>out_of_place: 2 KiB → 2.5 GB/s</title>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("class=\"threshold fail\""), std::string::npos);
  EXPECT_NE(svg.find(">1 KiB<"), std::string::npos);
}

TEST(Html, ABarChartMarksTheBarsAskedFor) {
  const std::string svg = render(BarChart{"t", "µs", {{"r0", 10, false}, {"r1", 30, true}}});
  EXPECT_EQ(count(svg, "class=\"bar marked\""), 1u);
  EXPECT_NE(svg.find("▲ r1"), std::string::npos);
}

Heatmap square(std::size_t n, int slow) {
  Heatmap h;
  h.title = "m";
  h.value_label = "GB/s";
  for (std::size_t i = 0; i < n; ++i) h.names.push_back("n" + std::to_string(i));
  h.values.assign(n, std::vector<std::optional<double>>(n));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j) h.values[i][j] = (static_cast<int>(i) == slow || static_cast<int>(j) == slow) ? 1.0 : 10.0;
  h.marked_names = {slow};
  return h;
}

TEST(Html, ASmallHeatmapDrawsEveryPairAndNamesTheMarkedNode) {
  const std::string svg = render(square(4, 2));
  // Node 2's six cells at a tenth of the median, the other six at it; each count has its legend swatch.
  EXPECT_EQ(count(svg, "<rect class=\"h0\" x"), 6u + 1u);
  EXPECT_EQ(count(svg, "<rect class=\"h3\" x"), 6u + 1u);
  EXPECT_NE(svg.find(">▲ n2<"), std::string::npos);
}

TEST(Html, ALargeHeatmapDrawsBlocksThatShowTheirWorstPair) {
  const std::string svg = render(square(1024, 300));
  EXPECT_LE(count(svg, "<rect class=\"h"), 128u * 128u + 5u);  // the legend's five swatches
  // Node 300 is in block 37 (8 nodes a block): its row and column are the slow ones.
  EXPECT_EQ(count(svg, "<rect class=\"h0\" x"), 2u * 128u - 1u + 1u);  // and the legend's swatch
  EXPECT_NE(svg.find("n296–n303 ↔ n0–n7: worst 1 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("▲<title>n300</title>"), std::string::npos);
}

LatenessMap lateness(std::size_t ranks, int late, double late_percent) {
  LatenessMap m;
  m.title = "late";
  for (std::size_t c = 0; c < 4; ++c) m.columns.push_back("bin " + std::to_string(c));
  for (std::size_t r = 0; r < ranks; ++r) {
    m.rows.push_back("rank " + std::to_string(r));
    m.percent.push_back(std::vector<std::optional<double>>(4, static_cast<int>(r) == late ? late_percent : 0.4));
  }
  if (late >= 0) m.marked_rows = {late};
  return m;
}

// The scale is fixed: a rank 1.5% late is on time however small the others' noise, one 23% late
// is in the darkest bin.
TEST(Html, ALatenessMapShowsTheLateRowOnAFixedScale) {
  const std::string late = render(lateness(8, 5, 23.0));
  EXPECT_EQ(count(late, "<rect class=\"h0\" x"), 4u + 1u);  // its four cells and the legend's swatch
  EXPECT_EQ(count(late, "<rect class=\"h3\" x"), 7u * 4u + 1u);
  EXPECT_NE(late.find(">▲ rank 5</text>"), std::string::npos);
  EXPECT_NE(late.find("<title>rank 5, bin 2: 23.0% late</title>"), std::string::npos);
  const std::string ok = render(lateness(8, -1, 1.5));
  EXPECT_EQ(count(ok, "<rect class=\"h3\" x"), 8u * 4u + 1u);
  EXPECT_EQ(count(ok, "tick marked"), 0u);
}

TEST(Html, ALargeLatenessMapDrawsBlocksShowingTheirLatest) {
  const std::string svg = render(lateness(1024, 300, 23.0));
  EXPECT_EQ(count(svg, "<rect class=\"h"), 128u * 4u + 4u);  // 8 ranks a row, and the legend
  EXPECT_EQ(count(svg, "<rect class=\"h0\" x"), 4u + 1u);   // the block holding rank 300
  EXPECT_NE(svg.find("rank 296 – rank 303, bin 0: latest 23.0% late"), std::string::npos);
  EXPECT_EQ(count(svg, "tick marked"), 1u);
  EXPECT_NE(svg.find(">▲ rank 300</text>"), std::string::npos);
}

TEST(Html, ATimeChartDrawsItsPointsOnALinearAxis) {
  const std::string svg = render(TimeChart{"busbw", "minutes", "GB/s", {{"AllReduce", {{0, 40}, {1.5, 39}, {3, NAN}}, 0}}});
  EXPECT_EQ(count(svg, "<polyline points=\""), 1u);
  // Two finite points: the first at the axis' left end (72), the second at its right end (72 + 478).
  EXPECT_NE(svg.find("<polyline points=\"72.0,"), std::string::npos) << svg;
  EXPECT_NE(svg.find(" 550.0,"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">minutes<"), std::string::npos);
}

TEST(Html, APageOfADocumentWithMissingOrNullMembersStillRenders) {
  const nlohmann::json doc = {{"schema", "collbench.run/1"}, {"world", nullptr}, {"verdict", {{"exit_code", nullptr}}},
                              {"findings", {{{"tag", "WARN"}, {"code", nullptr}}, 5}},
                              {"cases", {{{"op", "all_reduce"}, {"bytes", 1024}, {"busbw_gbs", nullptr}}}}};
  const std::string page = html_page({{"odd.json", doc, std::nullopt}}, "test");
  EXPECT_NE(page.find("<h2>run: <code>odd.json</code></h2>"), std::string::npos);
  EXPECT_NE(page.find("[WARN]"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
}

TEST(Html, AnInspectorDocumentWithoutDrawingsSaysSo) {
  nlohmann::json doc = {{"schema", "collbench.inspector/1"}, {"communicators", {{{"id", "0x1"}, {"n_ranks", 8}}}},
                        {"findings", nlohmann::json::array()}};
  const std::string old = html_page({{"old.json", doc, std::nullopt}}, "test");
  EXPECT_NE(old.find("<h2>inspector: <code>old.json</code></h2>"), std::string::npos);
  EXPECT_NE(old.find("carries no drawings"), std::string::npos);
  doc["heatmaps"] = nlohmann::json::array();
  const std::string empty = html_page({{"new.json", doc, std::nullopt}}, "test");
  EXPECT_EQ(empty.find("carries no drawings"), std::string::npos);
  EXPECT_NE(empty.find("No communicator of 3 ranks or more"), std::string::npos);
}

}  // namespace
}  // namespace collbench::report::html
