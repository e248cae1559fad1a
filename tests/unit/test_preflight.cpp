#include <gtest/gtest.h>

#include <numeric>

#include "bench/solo_control.h"
#include "launcher/commands/finish.h"
#include "launcher/job/join_watch.h"
#include "launcher/phases/preflight_plan.h"
#include "reports/preflight/preflight_json.h"
#include "reports/preflight/scheduler_hints.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench {
namespace {

using report::Finding;
using report::Priority;
using report::Subject;
using report::Tag;

const PhasePlan& phase(const std::vector<PhasePlan>& plan, const std::string& name) {
  for (const auto& p : plan)
    if (p.name == name) return p;
  throw std::runtime_error("no phase " + name);
}

TEST(PreflightPlan, FivePhasesInOrderAllRunOnSeveralNodes) {
  const auto plan = preflight_plan(4, 32, true, {});
  std::vector<std::string> names;
  for (const auto& p : plan) {
    names.push_back(p.name);
    EXPECT_TRUE(p.runs) << p.name << ": " << p.reason;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"environment", "node", "world", "pairs", "fabric"}));
}

TEST(PreflightPlan, OneNodeSkipsWhatNeedsTwoAndSaysWhy) {
  const auto plan = preflight_plan(1, 4, true, {});
  EXPECT_TRUE(phase(plan, "environment").runs);
  EXPECT_TRUE(phase(plan, "node").runs);
  for (const char* name : {"world", "pairs", "fabric"}) {
    EXPECT_FALSE(phase(plan, name).runs) << name;
    EXPECT_NE(phase(plan, name).reason.find("one node"), std::string::npos) << phase(plan, name).reason;
  }
}

TEST(PreflightPlan, SkipListAndMissingLibfabricAreReasons) {
  const auto plan = preflight_plan(3, 3, false, {"world"});
  EXPECT_EQ(phase(plan, "world").reason, "--skip world");
  EXPECT_NE(phase(plan, "fabric").reason.find("without libfabric"), std::string::npos);
  EXPECT_TRUE(phase(plan, "pairs").runs);
  EXPECT_NE(phase(plan, "node").reason.find("one rank per node"), std::string::npos);
  const auto none = preflight_plan(3, 6, true, {"node", "world"});
  EXPECT_FALSE(phase(none, "environment").runs);  // nothing reads it
}

TEST(PreflightPlan, SharesSplitTheBudgetAndWhatIsLeftGoesToLaterPhases) {
  const auto plan = preflight_plan(4, 32, true, {});
  double planned = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) planned += planned_share_s(plan, i, 600);
  EXPECT_NEAR(planned, 600, 1e-9);
  EXPECT_NEAR(planned_share_s(plan, 1, 600), 120, 1e-9);  // node: 0.2
  EXPECT_NEAR(planned_share_s(plan, 3, 600), 180, 1e-9);  // pairs: 0.3
  // The node phase took 20 s of its 120: the world phase gets 0.3 / 0.8 of the 580 left.
  EXPECT_NEAR(phase_share_s(plan, 2, 580), 580 * 0.3 / 0.8, 1e-9);
  EXPECT_NEAR(phase_share_s(plan, 4, 100), 100, 1e-9);  // the last phase gets all that is left
  EXPECT_EQ(phase_share_s(plan, 4, -5), 0);              // over budget: nothing
  // A skipped phase's part goes to the others.
  const auto one = preflight_plan(1, 4, true, {});
  EXPECT_NEAR(planned_share_s(one, 1, 600), 600, 1e-9);
  EXPECT_EQ(planned_share_s(one, 2, 600), 0);
}

TEST(PreflightPlan, LargestSizeIsTheLargestJudgedForThisNodeCount) {
  report::InstanceThresholds t;
  t.rows = {{"all_reduce", "node", 1, 0, 2ull << 30, 1, 2, "", ""},
            {"all_reduce", "world", 2, 2, 2ull << 30, 1, 2, "", ""},
            {"all_reduce", "world", 4, 16, 8ull << 30, 1, 2, "", ""}};
  PreflightOptions o;
  EXPECT_EQ(preflight_max_bytes(o, t, 2, 1), 2ull << 30);
  EXPECT_EQ(preflight_max_bytes(o, t, 8, 1), 8ull << 30);
  EXPECT_EQ(preflight_max_bytes(o, std::nullopt, 8, 256), 256u);
  o.max_bytes = 1 << 20;
  EXPECT_EQ(preflight_max_bytes(o, t, 8, 1), 1u << 20);
}

TEST(PreflightPlan, SweepIsBoundedByItsShare) {
  RunOptions base;
  base.backend = BackendKind::Mpi;
  base.json_path = "x.json";
  const RunOptions o = preflight_sweep(base, Scope::Node, 16, 1 << 20, 30);
  EXPECT_EQ(o.backend, BackendKind::Mpi);
  EXPECT_EQ(o.scope, Scope::Node);
  EXPECT_EQ(o.ops.size(), 2u);
  EXPECT_EQ(o.placements, std::vector<Placement>{Placement::OutOfPlace});
  EXPECT_TRUE(o.iters.adaptive);
  EXPECT_DOUBLE_EQ(o.op_budget_s, 15);
  // 1 KiB to 1 MiB by 2 is 11 sizes, 22 cases: 30 s / 22 / 2 each.
  EXPECT_EQ(o.min_bytes, 1024u);
  EXPECT_NEAR(o.iters.max_time_s, 30.0 / 22 / 2, 1e-9);
  EXPECT_TRUE(o.json_path.empty());
  EXPECT_EQ(preflight_sweep(base, Scope::World, 1000, 1 << 20, 60).min_bytes, 16384u);  // 16 B per peer
  EXPECT_DOUBLE_EQ(preflight_sweep(base, Scope::World, 16, 1 << 20, 0.5).iters.max_time_s, 0.02);  // floor
  EXPECT_DOUBLE_EQ(preflight_sweep(base, Scope::World, 16, 8, 1e6).iters.max_time_s, 1.0);        // cap
}

TEST(PreflightPlan, RenderedPlanShowsSharesAndReasons) {
  const std::string text = render_preflight_plan(preflight_plan(1, 4, true, {}), 120, 1, 4);
  EXPECT_NE(text.find("# Preflight: 1 node(s), 4 ranks; budget 120 s"), std::string::npos) << text;
  EXPECT_NE(text.find("2. node        about 120 s"), std::string::npos) << text;
  EXPECT_NE(text.find("4. pairs       skipped: one node: no pairs of nodes to screen"), std::string::npos) << text;
}

Finding fail_on(Subject s, std::string code = "NODE_SLOW") {
  return {std::move(code), Tag::Fail, Priority::P0, "m", "", std::move(s)};
}

TEST(SchedulerHints, OneDrainLinePerConvictedNode) {
  const std::vector<Finding> f = {
      fail_on(Subject::node("node-b", {2, 3})),
      fail_on(Subject::rank(5, "node-c"), "RESULTS_WRONG"),
      fail_on(Subject::node("node-b"), "STRAGGLER"),
      fail_on(Subject::link("node-a", "node-d")),                                    // a link convicts no node
      fail_on(Subject::world()),                                                      // nor the world
      {"NODE_SLOW", Tag::Warn, Priority::P1, "m", "", Subject::node("node-e")},  // nor a warning
  };
  const auto hints = report::scheduler_hints(f, false);
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_EQ(hints[0].host, "node-b");
  EXPECT_EQ(hints[0].codes, (std::vector<std::string>{"NODE_SLOW", "STRAGGLER"}));
  EXPECT_EQ(hints[0].slurm, "scontrol update nodename=node-b state=drain reason=\"collbench preflight: NODE_SLOW, STRAGGLER\"");
  EXPECT_EQ(hints[0].kubernetes, "kubectl taint nodes node-b collbench.io/preflight=NODE_SLOW:NoSchedule --overwrite");
  EXPECT_EQ(hints[1].host, "node-c");
  EXPECT_NE(report::render_hints(hints).find("printed, not run"), std::string::npos);
  EXPECT_EQ(report::render_hints({}), "");
}

TEST(SchedulerHints, InAPodTheTaintLooksTheNodeUp) {
  const auto hints = report::scheduler_hints({fail_on(Subject::node("job-worker-1"))}, true);
  ASSERT_EQ(hints.size(), 1u);
  EXPECT_EQ(hints[0].kubernetes,
            "kubectl taint nodes \"$(kubectl get pod job-worker-1 -o jsonpath='{.spec.nodeName}')\" "
            "collbench.io/preflight=NODE_SLOW:NoSchedule --overwrite");
}

TEST(PreflightDocument, PhasesFindingsWithTheirPhaseAndTheVerdict) {
  report::PreflightRecord r;
  r.started_at = "2026-12-04T10:00:00Z";
  r.valid_until = "2026-12-05T10:02:00Z";
  r.hosts = {"a", "b"};
  r.ranks = 16;
  r.phases.push_back({"node", "ran", "", 120, 80, {fail_on(Subject::node("b"))}, nlohmann::json::object()});
  r.phases.push_back({"pairs", "skipped", "--skip pairs", 0, 0, {}, nullptr});
  const auto hints = report::scheduler_hints(report::all_findings(r), false);
  const auto doc = report::preflight_document(r, hints, 3);
  EXPECT_EQ(doc["schema"], "collbench.preflight/1");
  EXPECT_EQ(doc["valid_until"], "2026-12-05T10:02:00Z");
  ASSERT_EQ(doc["phases"].size(), 2u);
  EXPECT_EQ(doc["phases"][1]["status"], "skipped");
  EXPECT_EQ(doc["phases"][1]["reason"], "--skip pairs");
  EXPECT_TRUE(doc["phases"][0]["reason"].is_null());
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["phase"], "node");
  EXPECT_EQ(doc["findings"][0]["subject"]["hosts"], nlohmann::json::array({"b"}));
  EXPECT_EQ(doc["verdict"]["exit_code"], 3);
  EXPECT_EQ(doc["verdict"]["go"], false);
  EXPECT_EQ(doc["scheduler_hints"][0]["host"], "b");
}

TEST(PreflightDocument, AFindingTwoPhasesSayAlikeCountsOnceAndDifferentOnesEach) {
  report::PreflightRecord r;
  const Finding skipped = report::thresholds_skipped("the instance type is unknown", false);
  Finding other_node = fail_on(Subject::node("c"));
  r.phases.push_back({"node", "ran", "", 60, 30, {skipped, fail_on(Subject::node("b"))}, nlohmann::json::object()});
  r.phases.push_back({"world", "ran", "", 60, 30, {skipped, other_node}, nlohmann::json::object()});
  const auto all = report::all_findings(r);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].code, "THRESHOLDS_SKIPPED");
  EXPECT_EQ(all[1].subject.hosts, std::vector<std::string>{"b"});
  EXPECT_EQ(all[2].subject.hosts, std::vector<std::string>{"c"});
  const auto doc = report::preflight_document(r, {}, 3);
  EXPECT_EQ(doc["findings"].size(), 4u);  // each phase's own, with its phase
  EXPECT_EQ(doc["verdict"]["issues_found"], 3);
}

TEST(Finish, ExitCodeFromFindingsUnlessSetAndAFailedWriteIsOne) {
  SoloControl control;
  VerdictOptions v;
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  EXPECT_EQ(finish(control, v, false, {{fail_on(Subject::world())}, true, nullptr, std::nullopt}), 3);
  EXPECT_EQ(finish(control, v, false, {{fail_on(Subject::world())}, true, nullptr, 1}), 1);
  int saved_with = -1;
  EXPECT_EQ(finish(control, v, false, {{}, true, [&](const auto&, int code) { saved_with = code; }, std::nullopt}), 0);
  EXPECT_EQ(saved_with, 0);
  EXPECT_EQ(finish(control, v, false,
                   {{}, true, [](const auto&, int) { throw std::runtime_error("disk full"); }, std::nullopt}),
            1);
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("collbench: error: disk full"), std::string::npos) << err;
  EXPECT_NE(out.find("Issues Found:"), std::string::npos) << out;
  v.fail_on_warn = true;
  testing::internal::CaptureStdout();
  EXPECT_EQ(finish(control, v, false, {{{"W", Tag::Warn, Priority::P2, "m", ""}}, true, nullptr, std::nullopt}), 3);
  testing::internal::GetCapturedStdout();
}

TEST(JoinWatch, NamesTheRanksThatNeverStartedAndWhere) {
  const std::string m = never_started_message({{3, "node3"}, {7, "node3"}}, 8, 30);
  EXPECT_NE(m.find("MPI_Init did not finish within 30 s: 2 of the job's 8 processes never started: rank 3 (host "
                   "node3), rank 7 (host node3);"),
            std::string::npos)
      << m;
  std::vector<MissingRank> many;
  for (int r = 0; r < 20; ++r) many.push_back({r, ""});
  const std::string long_list = never_started_message(many, 64, 60);
  EXPECT_NE(long_list.find("rank 15 and 4 more"), std::string::npos) << long_list;
  EXPECT_EQ(long_list.find("(host"), std::string::npos);  // no host known: none claimed
}

TEST(JoinWatch, JoinedInTimeSaysNothing) {
  testing::internal::CaptureStderr();
  {
    JoinWatch watch(0.2);
    watch.joined();
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace collbench
