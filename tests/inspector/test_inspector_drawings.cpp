// What the Inspector reader keeps for `collbench report` to draw (busbw over time, the rank x
// coll_sn lateness bins), the document's drawings, and the page drawn from it: the late rank's row
// is marked and a healthy job marks none.
#include <gtest/gtest.h>

#include <numeric>
#include <regex>

#include "reports/core/json_report.h"
#include "reports/export/metrics.h"
#include "reports/html/page.h"
#include "reports/inspector/inspector_drawings.h"
#include "tests/inspector/inspector_fixture.h"

namespace collbench::report::inspector {
namespace {

constexpr std::size_t kBins = LatenessBins::kBins;

double rank_sum(const LatenessBins& l, std::size_t rank) {
  double s = 0;
  for (std::size_t b = 0; b < kBins; ++b) s += l.late_share[rank * kBins + b];
  return s;
}

// Rank 3 arrives late by a quarter of the others' time in every collective (exact in float).
LatenessBins fill(std::uint64_t collectives) {
  LatenessBins l;
  const std::vector<float> exec{100, 100, 100, 75};
  for (std::uint64_t sn = 1; sn <= collectives; ++sn) l.add(sn, 1000 * sn, exec, 100);
  return l;
}

TEST(InspectorLateness, AJobLongerThanTheBinsKeepsTheirMemoryAndTheirSums) {
  const LatenessBins l = fill(10'000);
  EXPECT_EQ(l.collectives.size(), kBins);
  EXPECT_EQ(l.late_share.size(), 4 * kBins);
  EXPECT_EQ(l.width, 256u);  // the smallest power of two with 64 bins over 10,000
  EXPECT_EQ(std::accumulate(l.collectives.begin(), l.collectives.end(), std::uint64_t{0}), 10'000u);
  EXPECT_DOUBLE_EQ(rank_sum(l, 3), 2500.0);
  EXPECT_DOUBLE_EQ(rank_sum(l, 0), 0.0);
  EXPECT_EQ(l.used(), 40u);  // ceil(10,000 / 256)
  for (std::size_t b = 0; b < l.used(); ++b) {
    EXPECT_FLOAT_EQ(l.mean(3, b), 0.25f) << b;
    EXPECT_FLOAT_EQ(l.mean(1, b), 0.f) << b;
  }
  EXPECT_EQ(l.first_ts_us[0], 1000u);
  EXPECT_EQ(l.last_ts_us[l.used() - 1], 10'000'000u);
}

TEST(InspectorLateness, AJobWithinTheBinsKeepsOneCollectiveABin) {
  const LatenessBins l = fill(kBins);
  EXPECT_EQ(l.width, 1u);
  EXPECT_EQ(l.used(), kBins);
  for (std::size_t b = 0; b < kBins; ++b) EXPECT_EQ(l.collectives[b], 1u) << b;
  // One more halves them: the sums stay.
  const LatenessBins m = fill(kBins + 1);
  EXPECT_EQ(m.width, 2u);
  EXPECT_DOUBLE_EQ(rank_sum(m, 3), 0.25 * (kBins + 1));
}

// The late rank's row stands out in its communicators' bins, by its delay; nobody's does in a
// healthy job.
TEST_F(InspectorJob, TheLateRankIsTheBrightRowAndAHealthyJobHasNone) {
  auto s = spec(4, 2, sim::Fault::LateRank);
  s.fault_rank = 5;
  const Job late = run(s, "late");
  const Job ok = run(spec(4, 2), "ok");
  const Comm& world = late.comms.front();
  ASSERT_EQ(world.n_ranks, 8);
  for (std::size_t r = 0; r < 8; ++r)
    for (std::size_t b = 0; b < world.lateness.used(); ++b) {
      if (r == 5) EXPECT_GT(world.lateness.mean(r, b), 0.15f) << b;
      else EXPECT_LT(world.lateness.mean(r, b), 0.05f) << r << " " << b;
    }
  for (const auto& c : ok.comms)
    for (std::size_t r = 0; r < c.ranks.size() && c.n_ranks >= 3; ++r)
      for (std::size_t b = 0; b < c.lateness.used(); ++b) EXPECT_LT(c.lateness.mean(r, b), 0.05f) << c.id << " " << r;
  for (const auto& c : late.comms)
    for (const auto& ser : c.series) EXPECT_EQ(ser.ts_us.size(), ser.busbw.size());
}

TEST_F(InspectorJob, TheDocumentCarriesBoundedDrawingsWithTheLateRankFirst) {
  auto s = spec(4, 2, sim::Fault::LateRank);
  s.fault_rank = 5;
  s.collectives = 3000;  // more than the document's points a series and the bins
  s.interval_s = 0.1;
  const auto doc = job_document(run(s));
  const auto& maps = doc["heatmaps"];
  ASSERT_FALSE(maps.empty());
  ASSERT_LE(maps.size(), kDocHeatmaps);
  EXPECT_EQ(maps[0]["late_rank"], maps[0]["n_ranks"] == 8 ? 5 : 2) << maps[0]["communicator"];
  EXPECT_EQ(maps[0]["rank_hosts"][maps[0]["late_rank"].get<int>()], "node-002");
  EXPECT_LE(maps[0]["late_percent"][0].size(), kBins);
  for (const auto& c : doc["communicators"])
    for (const auto& ser : c["series"]) {
      EXPECT_LE(ser["busbw_gbs"].size(), kDocPoints);
      EXPECT_EQ(ser["t_s"].size(), ser["busbw_gbs"].size());
      EXPECT_GT(ser["t_s"].back().get<double>(), 250.0);  // 3,000 steps 0.1 s apart
    }
  const auto healthy = job_document(run(spec(4, 2), "ok"));
  ASSERT_FALSE(healthy["heatmaps"].empty());
  for (const auto& m : healthy["heatmaps"]) EXPECT_TRUE(m["late_rank"].is_null()) << m["communicator"];
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Drawn cells of a colour bin (a legend's swatch has no title).
std::size_t cells(const std::string& page, int bin) {
  const std::regex cell("<rect class=\"h" + std::to_string(bin) + "\"[^>]*><title>");
  return static_cast<std::size_t>(std::distance(std::sregex_iterator(page.begin(), page.end(), cell), std::sregex_iterator()));
}

std::string page_of(const Job& job) {
  auto doc = job_document(job);
  add_verdict(doc, inspector_findings(job), 0);
  return html::html_page({{"inspector.json", doc, std::nullopt}}, "test");
}

TEST_F(InspectorJob, ThePageMarksTheLateRanksRowAndAHealthyPageMarksNone) {
  auto s = spec(4, 2, sim::Fault::LateRank);
  s.fault_rank = 5;
  const std::string late = page_of(run(s, "late"));
  const std::string ok = page_of(run(spec(4, 2), "ok"));
  for (const std::string* page : {&late, &ok}) {
    EXPECT_NE(page->find("<h2>inspector: <code>inspector.json</code></h2>"), std::string::npos);
    EXPECT_NE(page->find("how late each rank arrived"), std::string::npos);
    EXPECT_NE(page->find("busbw (8 ranks on 4 nodes)"), std::string::npos);  // the world's series
    EXPECT_GE(count(*page, "<svg class=\"chart\""), 2u + 7u);  // heat maps and one chart a series
  }
  EXPECT_NE(late.find(">▲ rank 5 · node-002</text>"), std::string::npos);
  EXPECT_NE(late.find("late: rank 5 · node-002"), std::string::npos);
  EXPECT_NE(late.find("LATE_RANK"), std::string::npos);
  EXPECT_GT(cells(late, 0), 0u);  // 10% late or more
  EXPECT_GT(cells(ok, 3), 0u);    // on time
  EXPECT_EQ(count(ok, "tick marked"), 0u);
  EXPECT_EQ(cells(ok, 0), 0u);
  EXPECT_EQ(cells(ok, 1), 0u);
  EXPECT_NE(ok.find("no late rank"), std::string::npos);
}

// Metrics from an Inspector document: its findings and verdict, under command="inspector".
TEST_F(InspectorJob, ADocumentsMetricsAreItsFindingsAndVerdict) {
  const Job job = run(spec(4, 2), "ok");
  auto doc = job_document(job);
  add_verdict(doc, inspector_findings(job), 0);
  MetricSet set;
  add_document_metrics(doc, set);
  bool findings = false;
  for (const auto& r : set.records) {
    EXPECT_EQ(r.labels.front(), (std::pair<std::string, std::string>{"command", "inspector"}));
    for (const auto& [def, v] : r.values) findings = findings || std::string(def->prom_name) == "collbench_findings";
  }
  EXPECT_TRUE(findings);
  doc["schema"] = "collbench.inspector/2";
  EXPECT_THROW(add_document_metrics(doc, set), std::invalid_argument);
}

}  // namespace
}  // namespace collbench::report::inspector
