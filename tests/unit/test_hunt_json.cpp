#include <gtest/gtest.h>

#include "reports/hunt/hunt_json.h"

namespace collbench::report {
namespace {

HuntRecord three_nodes() {
  HuntRecord r;
  r.header.tool_version = "0.1.0";
  r.header.world.ranks = 6;
  r.header.world.nodes = {{"a", {0, 1}}, {"b", {2, 3}}, {"c", {4, 5}}};
  r.plan = {"auto", "all_reduce", 1 << 20, true, 0.01, 0.6, 4, 120, 200};
  r.not_measured = {{1, 2}};
  r.rounds = {{"node", 0, 0.5, {}}, {"pairs", 1, 1.5, {{0, 1}}}, {"pairs", 2, 1.25, {{0, 2}}}, {"pairs", 3, 1.0, {{1, 2}}}};
  r.node_phase = {{"a", 10, 5}, {"b", 10.5, 5}, {"c", 9.8, 5}};
  r.samples = {{0, 1, 1, {4, 5, 6}}, {0, 2, 2, {5, 5, 5}}, {1, 2, 3, {1, 2, 3}}};
  return r;
}

TEST(HuntJson, DocumentCarriesRoundsMatrixAndVerdicts) {
  const HuntRecord r = three_nodes();
  const Attribution a = attribute(r.samples, 3);
  const std::vector<Finding> f = {{"NO_STRAGGLER", Tag::Pass, Priority::None, "m", ""}};
  const auto d = hunt_document(r, a, f, 0);
  EXPECT_EQ(d["schema"], kHuntSchema);
  EXPECT_EQ(d["hunt"]["pattern"], "auto");
  EXPECT_EQ(d["hunt"]["planned_rounds"], 4);
  EXPECT_EQ(d["hunt"]["bytes_chosen_by"], "probe");
  EXPECT_EQ(d["hunt"]["budget_s"], 120);
  EXPECT_EQ(d["hunt"]["max_iters"], 200);
  EXPECT_EQ(d["not_measured"]["pairs"][0]["hosts"], nlohmann::json({"b", "c"}));
  EXPECT_FALSE(d["not_measured"]["node_phase"].get<bool>());
  EXPECT_EQ(d["rounds"][1]["pairs"][0]["iterations"], 3);
  ASSERT_EQ(d["rounds"].size(), 4u);
  EXPECT_EQ(d["rounds"][0]["phase"], "node");
  EXPECT_TRUE(d["rounds"][0]["pairs"].empty());
  EXPECT_EQ(d["rounds"][1]["pairs"][0]["hosts"], nlohmann::json({"a", "b"}));
  EXPECT_DOUBLE_EQ(d["rounds"][1]["pairs"][0]["busbw_gbs"].get<double>(), 5.0);
  EXPECT_EQ(d["rounds"][1]["pairs"][0]["samples_gbs"], nlohmann::json({4, 5, 6}));
  EXPECT_DOUBLE_EQ(d["rounds_wall_s"].get<double>(), 4.25);
  const auto& m = d["attribution"]["matrix_gbs"];
  ASSERT_EQ(m.size(), 3u);
  EXPECT_TRUE(m[0][0].is_null());
  EXPECT_DOUBLE_EQ(m[1][2].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(m[2][1].get<double>(), 2.0);
  EXPECT_EQ(d["attribution"]["hosts"], nlohmann::json({"a", "b", "c"}));
  EXPECT_EQ(d["attribution"]["nodes"].size(), 3u);
  ASSERT_EQ(d["node_phase"].size(), 3u);
  EXPECT_EQ(d["node_phase"][2]["verdict"], "healthy");
  EXPECT_EQ(d["findings"][0]["code"], "NO_STRAGGLER");
  EXPECT_EQ(d["verdict"]["exit_code"], 0);
}

TEST(HuntJson, RoundLineHasOnlyItsOwnPairs) {
  const HuntRecord r = three_nodes();
  const auto line = to_json(r.rounds[2], r.samples, {"a", "b", "c"});
  ASSERT_EQ(line["pairs"].size(), 1u);
  EXPECT_EQ(line["pairs"][0]["nodes"], nlohmann::json({0, 2}));
  EXPECT_DOUBLE_EQ(line["wall_s"].get<double>(), 1.25);
}

}  // namespace
}  // namespace collbench::report
