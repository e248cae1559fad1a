// collbench documents as metrics: the records a document gives, the Prometheus text line by line,
// and every EMF line against the specification's rules.
#include <gtest/gtest.h>

#include "common/emf_spec.h"
#include "reports/core/json_report.h"
#include "reports/export/emf.h"
#include "reports/export/metrics.h"
#include "reports/export/prometheus.h"
#include "reports/hunt/hunt_json.h"
#include "reports/preflight/preflight_json.h"

namespace collbench::report {
namespace {

using nlohmann::json;

RunHeader header(const std::vector<std::string>& hosts) {
  RunHeader h;
  h.tool_version = "0.1.0";
  h.started_at = "2026-12-05T01:02:03Z";
  h.world.backend = "mpi";
  h.world.instance_type = "p5.48xlarge";
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    h.world.nodes.push_back({hosts[i], {static_cast<int>(i)}});
    h.world.rank_info.push_back({static_cast<int>(i), 100, hosts[i], -1, "", "", "", 0});
  }
  h.world.ranks = static_cast<int>(hosts.size());
  return h;
}

CaseResult a_case(Scope scope, int first_rank, std::uint64_t bytes, double busbw) {
  CaseResult c;
  c.op = "all_reduce";
  c.dtype = "float";
  c.redop = "sum";
  c.bytes = bytes;
  c.group = {scope, first_rank, {first_rank}};
  c.time_us.median = 250;
  c.busbw_gbs = busbw;
  c.algbw_gbs = busbw / 2;
  return c;
}

json run_doc() {
  const std::vector<CaseResult> cases{a_case(Scope::World, 0, 1 << 20, 12.5), a_case(Scope::Node, 1, 1 << 20, 300)};
  const std::vector<Finding> findings{{"BUSBW_OK", Tag::Pass, Priority::None, "fine", ""},
                                      {"CURVE_DIP", Tag::Warn, Priority::P2, "a dip", ""},
                                      {"CURVE_DIP", Tag::Warn, Priority::P2, "another", ""}};
  RunOutcome outcome;
  return run_document(header({"node0", "node1"}), cases, findings, outcome);
}

const MetricRecord* find(const MetricSet& set, const MetricDef& def, const Labels& must_have) {
  for (const auto& r : set.records) {
    bool all = true;
    for (const auto& l : must_have) all = all && std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end();
    if (!all) continue;
    for (const auto& [d, v] : r.values)
      if (d == &def) return &r;
  }
  return nullptr;
}

double value(const MetricRecord& r, const MetricDef& def) {
  for (const auto& [d, v] : r.values)
    if (d == &def) return v;
  return NAN;
}

TEST(MetricsExport, ARunGivesEachCaseInBaseUnitsAndNamesTheNodeOfANodeCase) {
  MetricSet set;
  add_document_metrics(run_doc(), set);
  const MetricRecord* world = find(set, metric::kBusBandwidth, {{"scope", "world"}, {"size_bytes", "1048576"}});
  ASSERT_NE(world, nullptr);
  EXPECT_EQ(world->labels, (Labels{{"command", "run"}, {"op", "all_reduce"}, {"dtype", "float"}, {"redop", "sum"},
                                   {"placement", "out_of_place"}, {"scope", "world"}, {"size_bytes", "1048576"}}));
  EXPECT_DOUBLE_EQ(value(*world, metric::kBusBandwidth), 12.5e9);
  EXPECT_DOUBLE_EQ(value(*world, metric::kAlgBandwidth), 6.25e9);
  EXPECT_DOUBLE_EQ(value(*world, metric::kMedianTime), 250e-6);
  EXPECT_DOUBLE_EQ(world->timestamp_s, utc_seconds("2026-12-05T01:02:03Z"));
  const MetricRecord* node = find(set, metric::kBusBandwidth, {{"scope", "node"}});
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->labels.back(), (std::pair<std::string, std::string>{"node", "node1"}));
  const MetricRecord* dips = find(set, metric::kFindings, {{"code", "CURVE_DIP"}});
  ASSERT_NE(dips, nullptr);
  EXPECT_EQ(value(*dips, metric::kFindings), 2);
  const MetricRecord* info = find(set, metric::kInfo, {{"instance_type", "p5.48xlarge"}, {"backend", "mpi"}});
  ASSERT_NE(info, nullptr);
  const MetricRecord* verdict = find(set, metric::kExitCode, {{"command", "run"}});
  ASSERT_NE(verdict, nullptr);
  EXPECT_EQ(value(*verdict, metric::kIssuesFound), 2);
  EXPECT_EQ(value(*verdict, metric::kComplete), 1);
}

TEST(MetricsExport, AnUnknownDocumentOrASecondOfTheSameCommandIsRefused) {
  MetricSet set;
  EXPECT_THROW(add_document_metrics(json{{"schema", "nccl-tests"}}, set), std::invalid_argument);
  EXPECT_THROW(add_document_metrics(json::array(), set), std::invalid_argument);
  add_document_metrics(run_doc(), set);
  try {
    add_document_metrics(run_doc(), set);
    FAIL() << "two run documents would repeat every series";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("one document per command"), std::string::npos) << e.what();
  }
}

TEST(MetricsExport, AHuntGivesEveryNodeItsScoreDropAndOneVerdict) {
  HuntRecord r;
  r.header = header({"a", "b", "c"});
  Attribution a;
  for (int i = 0; i < 3; ++i) a.nodes.push_back({i, i == 2 ? 2.0 : 10.0, i == 2 ? 0.8 : 0.0, 10, {}, {}, ""});
  a.nodes[2].kind = NodeVerdict::Kind::Straggler;
  MetricSet set;
  add_document_metrics(hunt_document(r, a, {}, 3), set);
  const MetricRecord* c = find(set, metric::kNodeBusBandwidth, {{"node", "c"}});
  ASSERT_NE(c, nullptr);
  EXPECT_DOUBLE_EQ(value(*c, metric::kNodeBusBandwidth), 2e9);
  EXPECT_DOUBLE_EQ(value(*c, metric::kNodeDrop), 0.8);
  for (const char* v : {"healthy", "slow", "inconclusive"}) {
    const MetricRecord* s = find(set, metric::kNodeVerdict, {{"node", "c"}, {"verdict", v}});
    ASSERT_NE(s, nullptr) << v;
    EXPECT_EQ(value(*s, metric::kNodeVerdict), std::string(v) == "slow" ? 1 : 0) << v;
  }
}

TEST(MetricsExport, APreflightGivesItsPhasesValidityAndItsPhasesDocumentsOnce) {
  PreflightRecord r;
  r.started_at = "2026-12-05T01:00:00Z";
  r.valid_until = "2026-12-06T01:00:00Z";
  PreflightPhase node{"node", "ran", "", 30, 12.5, {{"BUSBW_OK", Tag::Pass, Priority::None, "fine", ""}}, run_doc()};
  PreflightPhase pairs{"pairs", "skipped", "one node", 0, 0, {}, nullptr};
  r.phases = {node, pairs};
  MetricSet set;
  add_document_metrics(preflight_document(r, {}, 0), set);
  const MetricRecord* until = find(set, metric::kValidUntil, {{"command", "preflight"}});
  ASSERT_NE(until, nullptr);
  EXPECT_DOUBLE_EQ(value(*until, metric::kValidUntil), utc_seconds("2026-12-06T01:00:00Z"));
  const MetricRecord* wall = find(set, metric::kPhaseWall, {{"phase", "node"}, {"status", "ran"}});
  ASSERT_NE(wall, nullptr);
  EXPECT_DOUBLE_EQ(value(*wall, metric::kPhaseWall), 12.5);
  EXPECT_NE(find(set, metric::kPhaseWall, {{"phase", "pairs"}, {"status", "skipped"}}), nullptr);
  EXPECT_NE(find(set, metric::kBusBandwidth, {{"command", "preflight"}, {"phase", "node"}}), nullptr);
  // The phase's findings are the preflight's: counted once, under their phase.
  const MetricRecord* ok = find(set, metric::kFindings, {{"code", "BUSBW_OK"}});
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->labels, (Labels{{"command", "preflight"}, {"phase", "node"}, {"tag", "PASS"}, {"code", "BUSBW_OK"}}));
  EXPECT_EQ(find(set, metric::kFindings, {{"code", "CURVE_DIP"}}), nullptr);
}

TEST(MetricsExport, PrometheusTextHasOneHelpAndTypePerFamilyAndEscapedLabels) {
  MetricSet set;
  set.records.push_back({{{"command", "run"}, {"node", "a\"b\\c\nd"}}, {{&metric::kBusBandwidth, 1.5e9}}, 0});
  set.records.push_back({{{"command", "run"}}, {{&metric::kExitCode, 3}, {&metric::kBusBandwidth, 2e9}}, 0});
  EXPECT_EQ(prometheus_text(set),
            "# HELP collbench_bus_bandwidth_bytes_per_second Bus bandwidth of a case, as nccl-tests computes it "
            "(median iteration)\n"
            "# TYPE collbench_bus_bandwidth_bytes_per_second gauge\n"
            "collbench_bus_bandwidth_bytes_per_second{command=\"run\",node=\"a\\\"b\\\\c\\nd\"} 1500000000\n"
            "collbench_bus_bandwidth_bytes_per_second{command=\"run\"} 2000000000\n"
            "# HELP collbench_exit_code collbench's exit code: 0 pass, 1 could not run, 2 bad input, 3 [FAIL]\n"
            "# TYPE collbench_exit_code gauge\n"
            "collbench_exit_code{command=\"run\"} 3\n");
}

TEST(MetricsExport, EveryEmfLineFollowsTheSpecificationAndCarriesItsRecord) {
  MetricSet set;
  add_document_metrics(run_doc(), set);
  set.records.push_back({{{"command", "x"}}, {{&metric::kExitCode, 1}}, 0});  // no start time: now
  const std::string text = emf_lines(set, "collbench-test", 1796500000123LL);
  std::size_t lines = 0, at = 0;
  for (std::size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1, ++lines) {
    const std::string line = text.substr(at, end - at);
    EXPECT_EQ(collbench::test::emf_problems(line), std::vector<std::string>{}) << line;
    const json j = json::parse(line);
    const MetricRecord& r = set.records.at(lines);
    EXPECT_EQ(j["_aws"]["CloudWatchMetrics"][0]["Namespace"], "collbench-test");
    EXPECT_EQ(j["_aws"]["Timestamp"], r.timestamp_s > 0 ? 1796432523000LL : 1796500000123LL);
    for (const auto& [k, v] : r.labels) EXPECT_EQ(j[k], v) << line;
    for (const auto& [def, v] : r.values) {
      EXPECT_DOUBLE_EQ(j[def->emf_name].get<double>(), v) << line;
      EXPECT_NE(j["_aws"]["CloudWatchMetrics"][0]["Metrics"].dump().find(def->emf_unit), std::string::npos);
    }
  }
  EXPECT_EQ(at, text.size()) << "every line ends with a newline";
  EXPECT_EQ(lines, set.records.size());
}

TEST(MetricsExport, TheEmfCheckerCatchesWhatTheSpecificationForbids) {
  using collbench::test::emf_problems;
  const std::string good =
      R"({"_aws":{"Timestamp":1796500000123,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[["op"]],)"
      R"("Metrics":[{"Name":"M","Unit":"Seconds"}]}]},"op":"x","M":1})";
  EXPECT_TRUE(emf_problems(good).empty());
  EXPECT_FALSE(emf_problems(R"({"op":"x"})").empty());
  auto broken = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return !emf_problems(s).empty();
  };
  EXPECT_TRUE(broken("1796500000123", "1796500000"));       // seconds
  EXPECT_TRUE(broken("\"Seconds\"", "\"Secs\""));            // not a StandardUnit
  EXPECT_TRUE(broken("\"op\":\"x\"", "\"op\":1"));           // dimension not a string
  EXPECT_TRUE(broken("\"M\":1}", "\"N\":1}"));               // metric without its member
  EXPECT_TRUE(broken("\"Namespace\":\"n\",", ""));           // no namespace
}

TEST(MetricsExport, UtcSecondsReadsOnlyTheFormCollbenchWrites) {
  EXPECT_DOUBLE_EQ(utc_seconds("1970-01-02T00:00:00Z"), 86400);
  EXPECT_EQ(utc_seconds("2026-12-05 01:02:03"), 0);
  EXPECT_EQ(utc_seconds("2026-12-05T01:02:03Z trailing"), 0);
  EXPECT_EQ(utc_seconds(""), 0);
}

}  // namespace
}  // namespace collbench::report
