// The one walk from an attribution to findings that hunt and fabric share: the same verdicts under
// either command's words, values in the measure's unit, ranks as units, and the short lists.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/short_list.h"
#include "reports/core/references.h"
#include "reports/pairs/busy_hosts.h"
#include "reports/pairs/pair_findings.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Five nodes: n1 slow with everyone, n3<->n4 a slow link, round 2 slow everywhere, n0 in doubt and
// n2<->n4 slow but within the others' spread. Rates are GB/s (or 1000/us for latency).
Attribution everything() {
  Attribution a;
  a.cluster_median = 20;
  a.pair_median = 20;
  a.matrix.assign(5, std::vector<double>(5, 20));
  for (int v = 0; v < 5; ++v) a.matrix[v][v] = kNaN;
  for (int v = 0; v < 5; ++v) {
    NodeVerdict nv;
    nv.node = v;
    nv.score = 20;
    a.nodes.push_back(nv);
  }
  a.nodes[1] = {1, 10, 0.5, 20, {{0, 9}, {2, 10}}, NodeVerdict::Kind::Straggler, "confirmed"};
  a.nodes[0].kind = NodeVerdict::Kind::Inconclusive;
  a.nodes[0].reason = "its pairs disagree";
  a.slow_links.push_back({3, 4, 12, 0.4, {}});
  a.suspect_links.push_back({2, 4, 16, 0.2, {}});
  a.fabric_wide_rounds = {2};
  return a;
}

PairWords words(const std::string& prefix, PairScale scale = PairScale::Bandwidth) {
  PairWords w;
  w.what = "pair measure";
  w.scale = scale;
  w.slow_node_code = prefix + "_NODE";
  w.slow_link_code = prefix + "_LINK";
  w.inconclusive_code = prefix + "_DOUBT";
  w.pass_code = prefix + "_OK";
  w.one_pair_code = prefix + "_ONE_PAIR";
  w.drain_reason = "collbench: slow";
  w.wide_reference = ref::kPairwise;
  w.more_samples = "-n";
  w.one_pair_hint = "add a node";
  return w;
}

PairUnits nodes(int n) {
  PairUnits u;
  for (int v = 0; v < n; ++v) {
    u.names.push_back("host" + std::to_string(v));
    u.ranks.push_back({2 * v, 2 * v + 1});
  }
  return u;
}

TEST(PairFindings, HuntsWordsAndFabricsGiveTheSameVerdicts) {
  const Attribution a = everything();
  const auto hunt = attribution_findings(a, nodes(5).names, "pair busbw", nodes(5).ranks);
  const auto fabric = pair_findings(a, nodes(5), words("FABRIC"));
  EXPECT_EQ(codes(hunt), (std::vector<std::string>{"STRAGGLER_NODE", "SLOW_LINK", "FABRIC_WIDE_SLOWDOWN",
                                                   "HUNT_INCONCLUSIVE", "HUNT_INCONCLUSIVE"}));
  EXPECT_EQ(codes(fabric), (std::vector<std::string>{"FABRIC_NODE", "FABRIC_LINK", "FABRIC_WIDE_SLOWDOWN",
                                                     "FABRIC_DOUBT", "FABRIC_DOUBT"}));
  ASSERT_EQ(hunt.size(), fabric.size());
  for (std::size_t i = 0; i < hunt.size(); ++i) {
    SCOPED_TRACE(hunt[i].code);
    EXPECT_EQ(hunt[i].tag, fabric[i].tag);
    EXPECT_EQ(hunt[i].priority, fabric[i].priority);
    EXPECT_EQ(hunt[i].subject, fabric[i].subject);
  }
  // The subjects say who: the slow node with its ranks, the link's two ends, the doubtful node.
  EXPECT_EQ(hunt[0].subject, Subject::node("host1", {2, 3}));
  EXPECT_EQ(hunt[1].subject, Subject::link("host3", "host4"));
  EXPECT_EQ(hunt[3].subject, Subject::nodes({"host0"}, {0, 1}));
  EXPECT_EQ(hunt[4].subject, Subject::link("host2", "host4"));
  EXPECT_NE(hunt[0].message.find("host1: pair busbw 10 GB/s (median over its partners), 50% below the cluster median "
                                 "20 GB/s; worst partners: host0 9 GB/s, host2 10 GB/s; next step"),
            std::string::npos)
      << hunt[0].message;
  EXPECT_NE(hunt[3].message.find("1 of 5 nodes not judged on pair busbw (host0 20 GB/s"), std::string::npos)
      << hunt[3].message;
  EXPECT_NE(hunt[3].message.find("rerun with more iterations (-n)"), std::string::npos) << hunt[3].message;
}

TEST(PairFindings, AFabricWideRoundStillPassesTheNodes) {
  Attribution a = everything();
  a.nodes = {a.nodes[2], a.nodes[3], a.nodes[4]};
  a.slow_links.clear();
  a.suspect_links.clear();
  const auto f = pair_findings(a, nodes(5), words("X"));
  EXPECT_EQ(codes(f), (std::vector<std::string>{"FABRIC_WIDE_SLOWDOWN", "X_OK"}));
  EXPECT_EQ(f[0].reference, ref::kPairwise);
  EXPECT_EQ(f[1].tag, Tag::Pass);
}

TEST(PairFindings, LatencyReadsInMicrosecondsAndAbove) {
  // A rate of 10 is 100 us, against a median rate of 20 (50 us): twice the latency.
  const auto f = pair_findings(everything(), nodes(5), words("LAT", PairScale::Latency));
  ASSERT_EQ(f[0].code, "LAT_NODE");
  EXPECT_NE(f[0].message.find("pair measure 100.0 us (median over its partners), 100% above the cluster median "
                              "50.0 us"),
            std::string::npos)
      << f[0].message;
  EXPECT_EQ(f[0].message.find("GB/s"), std::string::npos) << f[0].message;
  EXPECT_NE(f[1].message.find("67% above the pair median 50.0 us"), std::string::npos) << f[1].message;
}

TEST(PairFindings, RanksOfOneNodeAreNamedAsRanksWithoutADrainHint) {
  PairUnits u;
  for (int r = 0; r < 5; ++r) {
    u.names.push_back("vm/r" + std::to_string(r));
    u.ranks.push_back({r});
  }
  u.host = "vm";
  const auto f = pair_findings(everything(), u, words("R"));
  EXPECT_EQ(f[0].subject, Subject::rank(1, "vm"));
  EXPECT_EQ(f[0].message.find("scontrol"), std::string::npos) << f[0].message;
  EXPECT_NE(f[1].message.find("between these two ranks"), std::string::npos) << f[1].message;
  EXPECT_EQ(f[3].subject, Subject::ranks_on({0}, {"vm"}));
  EXPECT_NE(f[3].message.find("1 of 5 ranks not judged"), std::string::npos) << f[3].message;
}

TEST(PairFindings, OnePairIsTheOnlyFindingAndSaysWhatElseCanTell) {
  Attribution a;
  a.two_nodes = true;
  a.matrix = {{kNaN, 7.5}, {7.5, kNaN}};
  a.nodes.resize(2);
  a.nodes[0].kind = a.nodes[1].kind = NodeVerdict::Kind::Inconclusive;
  const auto f = pair_findings(a, nodes(2), words("P"));
  ASSERT_EQ(codes(f), std::vector<std::string>{"P_ONE_PAIR"});
  EXPECT_EQ(f[0].tag, Tag::Info);
  EXPECT_EQ(f[0].subject, Subject::nodes({"host0", "host1"}, {0, 1, 2, 3}));
  EXPECT_NE(f[0].message.find("two nodes make one pair (pair measure 7.5 GB/s)"), std::string::npos) << f[0].message;
  EXPECT_NE(f[0].message.find("what can be told: add a node"), std::string::npos) << f[0].message;
}

TEST(PairFindings, LongDoubtListsAreCut) {
  Attribution a = everything();
  a.slow_links.clear();
  for (auto& nv : a.nodes) {
    nv.kind = NodeVerdict::Kind::Inconclusive;
    nv.reason = "few samples";
  }
  a.nodes.resize(7, a.nodes.back());
  for (int v = 0; v < 7; ++v) a.nodes[v].node = v;
  const auto f = pair_findings(a, nodes(7), words("C"));
  const auto doubt = std::find_if(f.begin(), f.end(), [](const Finding& x) { return x.code == "C_DOUBT"; });
  ASSERT_NE(doubt, f.end());
  EXPECT_NE(doubt->message.find("7 of 7 nodes"), std::string::npos) << doubt->message;
  EXPECT_NE(doubt->message.find("host4 20 GB/s (0% below the cluster median): few samples; and 2 more"),
            std::string::npos)
      << doubt->message;
  EXPECT_EQ(doubt->message.find("host5"), std::string::npos) << doubt->message;
}

TEST(BusyHosts, OnlyOversubscribedNodesAreNamedAndTheRuleWidens) {
  const std::vector<std::string> names{"a", "b", "c"};
  EXPECT_FALSE(any_host_busy({0.5, 1.0, 0.9}));
  EXPECT_FALSE(busy_hosts_finding({0.5, 1.0, 0.9}, names, {"the hunt", "", ""}));
  EXPECT_TRUE(any_host_busy({0.5, 2.5, 0.9}));
  const auto f = busy_hosts_finding({0.5, 2.5, 1.5}, names, {"the fabric rounds", "", " (four times)"});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "HOSTS_BUSY");
  EXPECT_EQ(f->tag, Tag::Info);
  EXPECT_EQ(f->subject, Subject::nodes({"b", "c"}));
  EXPECT_NE(f->message.find("2 of 3 nodes had more runnable tasks than cores during the fabric rounds (b 2.5, c 1.5 "
                            "per core)"),
            std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("is called slow (four times)"), std::string::npos) << f->message;
  const AttributionOptions quiet;
  EXPECT_EQ(busy_host_rule(quiet).min_drop, quiet.max_excused);
  AttributionOptions wide;
  wide.min_drop = 0.9;
  EXPECT_EQ(busy_host_rule(wide).min_drop, 0.9) << "never narrower than the rule it widens";
}

TEST(BusyHosts, LatencyLinksOnBusyHostsAreDoubtedWithTheReason) {
  Attribution a = everything();
  a.suspect_links.clear();
  doubt_links_on_busy_hosts(a);
  EXPECT_TRUE(a.slow_links.empty());
  ASSERT_EQ(a.suspect_links.size(), 1u);
  const auto f = pair_findings(a, nodes(5), words("LAT", PairScale::Latency));
  EXPECT_EQ(codes(f), (std::vector<std::string>{"LAT_NODE", "FABRIC_WIDE_SLOWDOWN", "LAT_DOUBT", "LAT_DOUBT"}));
  EXPECT_EQ(f[3].subject, Subject::link("host3", "host4"));
  EXPECT_NE(f[3].message.find("host3 <-> host4 83.3 us (67% above): slow while the hosts were busy"), std::string::npos)
      << f[3].message;
}

TEST(ShortList, NamesThenACount) {
  EXPECT_EQ(short_list({"a", "b", "c", "d"}, 2, ", "), "a, b and 2 more");
  EXPECT_EQ(short_list({"x: 1", "y: 2", "z: 3"}, 2, "; "), "x: 1; y: 2; and 1 more");
  EXPECT_EQ(short_list({"a", "b"}, 5, ", "), "a, b");
  EXPECT_EQ(short_list({}, 3, ", "), "");
}

}  // namespace
}  // namespace collbench::report
