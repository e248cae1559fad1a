#include <gtest/gtest.h>

#include <cmath>

#include "reports/core/json_read.h"
#include "reports/core/json_report.h"
#include "reports/core/oversubscription.h"
#include "reports/run/arrival.h"

namespace collbench::report {
namespace {

constexpr double kPeriod = 100e-6;  // 100 us per iteration

// [rank][iteration] starts: every rank at i * period plus a small per-rank skew (the algorithm's
// own order), and `late_rank` `late_by` late in the iterations `late_at` picks.
std::vector<std::vector<double>> arrivals(int ranks, int iters, double skew_s, int late_rank, double late_by,
                                          bool (*late_at)(int)) {
  std::vector<std::vector<double>> a(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    for (int i = 0; i < iters; ++i) {
      double t = 1000.0 + i * kPeriod + r * skew_s;
      if (r == late_rank && late_at(i)) t += late_by;
      a[static_cast<std::size_t>(r)].push_back(t);
    }
  return a;
}

const std::vector<int> kRanks{0, 1, 2, 3};
const std::vector<std::string> kHosts{"node0", "node1", "node2", "node3"};
const std::vector<double> kError(4, 10e-6);

bool every_third(int i) { return i % 3 == 0; }
bool never(int) { return false; }

TEST(Arrival, RankLateInSomeIterationsIsNamedWithItsLateness) {
  const auto a = summarize_arrival(arrivals(4, 90, 1e-6, 2, 1e-3, every_third), kError, kRanks, kHosts);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rank, 2);
  EXPECT_EQ(a->host, "node2");
  EXPECT_EQ(a->iterations, 90u);
  EXPECT_EQ(a->late, 30u);
  EXPECT_EQ(a->last, 30u);
  EXPECT_NEAR(a->median_lateness_us, 1001, 0.01);  // 1002 us against the others' median (1 us)
  EXPECT_DOUBLE_EQ(a->clock_error_us, 10.0);
  EXPECT_DOUBLE_EQ(a->wait_share, 1.0);
  EXPECT_TRUE(names_late_rank(*a));
}

TEST(Arrival, AFewLongWaitsOutweighManyShortOnes) {
  // Rank 0 is 40 us last in 45 of 50 iterations (shares a core with a peer); rank 2 is 2 ms last in
  // the other 5 (a CPU hog's time slice). The others waited for rank 2 far longer.
  auto a = arrivals(4, 50, 0, -1, 0, never);
  for (int i = 0; i < 50; ++i) a[i % 10 == 0 ? 2 : 0][static_cast<std::size_t>(i)] += i % 10 == 0 ? 2e-3 : 40e-6;
  const auto s = summarize_arrival(a, std::vector<double>(4, 0.0), kRanks, kHosts);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rank, 2);
  EXPECT_EQ(s->late, 50u);
  EXPECT_EQ(s->last, 5u);
  EXPECT_NEAR(s->wait_share, 10e-3 / (10e-3 + 45 * 40e-6), 1e-9);
  EXPECT_TRUE(names_late_rank(*s));
}

TEST(Arrival, TheAlgorithmsOwnOrderWithinTheFloorNamesNobody) {
  // Rank 3 is last in every iteration, 6 us after rank 0, with exact clocks.
  const auto a = summarize_arrival(arrivals(4, 50, 2e-6, -1, 0, never), std::vector<double>(4, 0.0), kRanks, kHosts);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rank, -1);
  EXPECT_EQ(a->late, 0u);
  EXPECT_FALSE(names_late_rank(*a));
}

TEST(Arrival, LatenessWithinTheClockErrorOrSmallAgainstTheIterationCountsForNothing) {
  // 15 us late in every third iteration: within the clocks' 2 x 10 us.
  const auto a = summarize_arrival(arrivals(4, 60, 0, 1, 15e-6, every_third), kError, kRanks, kHosts);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->late, 0u);
  // Exact clocks, 20 us late: a fifth of the 100 us iteration, under the floor.
  const auto b = summarize_arrival(arrivals(4, 60, 0, 1, 20e-6, every_third), std::vector<double>(4, 0.0), kRanks, kHosts);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->late, 0u);
  // 30 us counts.
  const auto c = summarize_arrival(arrivals(4, 60, 0, 1, 30e-6, every_third), std::vector<double>(4, 0.0), kRanks, kHosts);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->rank, 1);
  EXPECT_EQ(c->late, 20u);
  EXPECT_EQ(c->last, 20u);
}

TEST(Arrival, LateIterationsSpreadOverRanksNameNoOne) {
  auto a = arrivals(4, 80, 0, -1, 0, never);
  for (int i = 0; i < 80; i += 4) a[static_cast<std::size_t>((i / 4) % 4)][static_cast<std::size_t>(i)] += 1e-3;
  const auto s = summarize_arrival(a, kError, kRanks, kHosts);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->late, 20u);
  EXPECT_EQ(s->last, 5u);  // each rank was last in 5
  EXPECT_NEAR(s->wait_share, 0.25, 1e-9);
  EXPECT_FALSE(names_late_rank(*s));
}

TEST(Arrival, TooFewLateIterationsNameNoOne) {
  const auto a = summarize_arrival(arrivals(4, 90, 0, 1, 1e-3, [](int i) { return i < 2; }), kError, kRanks, kHosts);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->rank, 1);
  EXPECT_EQ(a->last, 2u);
  EXPECT_FALSE(names_late_rank(*a));
}

TEST(Arrival, NothingToCompareWithOneRankOrNoIterations) {
  EXPECT_FALSE(summarize_arrival({{1.0, 2.0}}, {0.0}, {0}, {"a"}));
  EXPECT_FALSE(summarize_arrival({{}, {}}, {0.0, 0.0}, {0, 1}, {"a", "b"}));
  EXPECT_FALSE(summarize_arrival({{1.0}, {1.0}}, {0.0}, {0, 1}, {"a", "b"}));  // sizes disagree
}

CaseResult case_with(std::optional<CaseArrival> a) {
  CaseResult c;
  c.op = "all_reduce";
  c.arrival = std::move(a);
  return c;
}

CaseArrival naming(int rank, std::string host) {
  CaseArrival a;
  a.rank = rank;
  a.host = std::move(host);
  a.iterations = 100;
  a.late = 20;
  a.last = 18;
  a.median_lateness_us = 2500;
  a.wait_share = 0.8;
  a.wait_fraction = 0.3;
  a.clock_error_us = 30;
  return a;
}

TEST(Arrival, AWaitThatCostsLittleOfTheLoopNamesNoOne) {
  CaseArrival a = naming(2, "node2");
  EXPECT_TRUE(names_late_rank(a));
  a.wait_fraction = 0.09;
  EXPECT_FALSE(names_late_rank(a));
  a.wait_fraction = 0.3;
  a.wait_share = 0.5;
  EXPECT_FALSE(names_late_rank(a));
}

TEST(LateRank, ARankMostCasesNameIsLateRankWithItsHost) {
  std::vector<CaseResult> cases{case_with(naming(2, "node2")), case_with(naming(2, "node2")),
                                case_with(naming(2, "node2")), case_with(naming(1, "node1")),
                                case_with(CaseArrival{})};
  const auto f = late_rank_findings(cases);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "LATE_RANK");
  EXPECT_EQ(f[0].tag, Tag::Warn);
  EXPECT_EQ(f[0].priority, Priority::P1);
  EXPECT_EQ(f[0].subject, Subject::rank(2, "node2"));
  EXPECT_NE(f[0].message.find("rank 2 on node2"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("late in 3 of 5 cases"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("spent 30% of the timed loop waiting"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("80% of all their waiting"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("54 of the 60 late iterations"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("by 2.5 ms (median; clock error up to 30 us)"), std::string::npos) << f[0].message;
}

TEST(LateRank, ASharedClockIsSaidAsSuch) {
  CaseArrival a = naming(2, "node2");
  a.clock_error_us = 0;
  const auto f = late_rank_findings({case_with(a), case_with(a), case_with(a)});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].message.find("clock error under 1 us"), std::string::npos) << f[0].message;
}

TEST(LateRank, RanksTakingTurnsOnTooFewCoresNameNoOne) {
  // The same evidence, but the run's 4 ranks shared 2 cores: the scheduler, not a straggler.
  const std::vector<CaseResult> cases{case_with(naming(1, "vm")), case_with(naming(1, "vm")),
                                      case_with(naming(1, "vm"))};
  const auto f = late_rank_findings(cases, std::string("4 ranks share 2 cores on vm"));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "LATE_RANK_INCONCLUSIVE");
  EXPECT_EQ(f[0].tag, Tag::Info);
  EXPECT_EQ(f[0].priority, Priority::None);
  EXPECT_NE(f[0].message.find("not judged: 4 ranks share 2 cores on vm"), std::string::npos) << f[0].message;
  // Power: with a core per rank the same cases name rank 1.
  const auto named = late_rank_findings(cases);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].code, "LATE_RANK");
  EXPECT_EQ(named[0].priority, Priority::P1);
}

RankInfo on(int rank, int pid, std::string host, std::string machine, int cores) {
  RankInfo r;
  r.rank = rank;
  r.pid = pid;
  r.host = std::move(host);
  r.machine = std::move(machine);
  r.cores = cores;
  return r;
}

TEST(Oversubscription, MoreProcessesThanCoresOnOneMachine) {
  EXPECT_EQ(oversubscribed({on(0, 10, "vm", "k", 2), on(1, 11, "vm", "k", 2), on(2, 12, "vm", "k", 2),
                            on(3, 13, "vm", "k", 2)}),
            "4 ranks share 2 cores on vm");
  EXPECT_EQ(oversubscribed({on(0, 10, "vm", "k", 2), on(1, 11, "vm", "k", 2)}), std::nullopt);
  // A fake cluster's nodes on one kernel are one machine.
  EXPECT_EQ(oversubscribed({on(0, 10, "node0", "k", 2), on(1, 11, "node1", "k", 2), on(2, 12, "node2", "k", 2)}),
            "3 ranks share 2 cores on node0, node1, node2");
  // Two machines of 2 cores with 2 ranks each: a core per rank.
  EXPECT_EQ(oversubscribed({on(0, 10, "a", "k1", 2), on(1, 11, "a", "k1", 2), on(2, 12, "b", "k2", 2),
                            on(3, 13, "b", "k2", 2)}),
            std::nullopt);
  // -g 8: one process drives 8 GPUs on a 2-core host; it is one process.
  std::vector<RankInfo> g8;
  for (int r = 0; r < 8; ++r) g8.push_back(on(r, 10, "gpu", "k", 2));
  EXPECT_EQ(oversubscribed(g8), std::nullopt);
  // Unknown cores (a file written before they were recorded): no claim.
  EXPECT_EQ(oversubscribed({on(0, 10, "vm", "k", 0), on(1, 11, "vm", "k", 0), on(2, 12, "vm", "k", 0)}), std::nullopt);
}

TEST(Oversubscription, ReadFromADocument) {
  nlohmann::json doc = {{"world", {{"rank_info", nlohmann::json::array()}}}};
  for (int r = 0; r < 3; ++r)
    doc["world"]["rank_info"].push_back({{"rank", r}, {"pid", 10 + r}, {"host", "vm"}, {"machine", "k"}, {"cores", 1}});
  EXPECT_EQ(oversubscribed(doc), "3 ranks share 1 core on vm");
  doc["world"]["rank_info"][0].erase("cores");
  EXPECT_EQ(oversubscribed(doc), std::nullopt);
  EXPECT_EQ(oversubscribed(nlohmann::json::array()), std::nullopt);
}

TEST(LateRank, OneCaseIsNotEnough) {
  const auto f = late_rank_findings({case_with(naming(2, "node2")), case_with(CaseArrival{})});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "ARRIVALS_EVEN");
  EXPECT_EQ(f[0].tag, Tag::Pass);
}

TEST(LateRank, SplitBetweenRanksNamesNone) {
  // Two thirds of the naming cases are not enough: noise that picks one rank a little more often.
  const auto f = late_rank_findings({case_with(naming(2, "node2")), case_with(naming(2, "node2")),
                                     case_with(naming(1, "node1"))});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, "ARRIVALS_EVEN");
}

TEST(LateRank, NoArrivalsMeasuredClaimsNothing) {
  EXPECT_TRUE(late_rank_findings({case_with(std::nullopt), case_with(std::nullopt)}).empty());
  EXPECT_TRUE(late_rank_findings({}).empty());
}

TEST(LateRank, ArrivalSurvivesTheJsonDocument) {
  const CaseResult back = case_from_json(to_json(case_with(naming(3, "node3"))));
  ASSERT_TRUE(back.arrival);
  EXPECT_EQ(back.arrival->rank, 3);
  EXPECT_EQ(back.arrival->host, "node3");
  EXPECT_EQ(back.arrival->late, 20u);
  EXPECT_EQ(back.arrival->last, 18u);
  EXPECT_DOUBLE_EQ(back.arrival->median_lateness_us, 2500);
  EXPECT_DOUBLE_EQ(back.arrival->wait_share, 0.8);
  EXPECT_DOUBLE_EQ(back.arrival->wait_fraction, 0.3);
  const CaseResult nobody = case_from_json(to_json(case_with(CaseArrival{})));
  ASSERT_TRUE(nobody.arrival);
  EXPECT_EQ(nobody.arrival->rank, -1);
  EXPECT_FALSE(case_from_json(to_json(case_with(std::nullopt))).arrival);
}

}  // namespace
}  // namespace collbench::report
