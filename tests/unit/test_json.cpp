#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "reports/core/journal.h"
#include "reports/core/json_read.h"
#include "reports/core/json_report.h"

namespace collbench::report {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

RunHeader header() {
  RunHeader h;
  h.tool_version = "0.1.0";
  h.world.ranks = 2;
  h.world.backend = "mpi";
  h.world.nodes = {{"node-a", {0, 1}}};
  h.world.versions = {{"mpi", "Open MPI v4.1.4"}};
  return h;
}

}  // namespace

TEST(Json, DocumentHasTheStableCore) {
  CaseResult c;
  c.op = "all_reduce";
  c.dtype = "float";
  c.redop = "sum";
  c.placement = Placement::InPlace;
  c.bytes = 1024;
  c.count = 256;
  c.wrong = std::nullopt;
  c.time_us.median = 12.5;
  const Finding f{"WRONG_RESULTS", Tag::Fail, Priority::P0, "msg", "references/x.md \u00a7 1 Y"};
  const auto doc = run_document(header(), {c}, {f}, {true, "", 0, 3});
  EXPECT_EQ(doc["schema"], "collbench.run/1");
  EXPECT_EQ(doc["world"]["ranks"], 2);
  EXPECT_EQ(doc["world"]["nodes"][0]["name"], "node-a");
  EXPECT_EQ(doc["world"]["backend"], "mpi");
  EXPECT_EQ(doc["world"]["versions"]["mpi"], "Open MPI v4.1.4");
  const auto& jc = doc["cases"][0];
  for (const char* key : {"op", "dtype", "redop", "placement", "bytes", "count", "group", "time_us", "algbw_gbs",
                          "busbw_gbs", "wrong", "rank_median_us", "node_median_us"})
    EXPECT_TRUE(jc.contains(key)) << key;
  EXPECT_TRUE(jc["wrong"].is_null());
  EXPECT_EQ(jc["time_us"]["median"], 12.5);
  EXPECT_EQ(jc["group"]["scope"], "world");
  EXPECT_EQ(doc["findings"][0]["tag"], "FAIL");
  EXPECT_EQ(doc["findings"][0]["priority"], "P0");
  EXPECT_EQ(doc["verdict"]["issues_found"], 1);
  EXPECT_EQ(doc["verdict"]["exit_code"], 3);
}

TEST(Json, PlacementAndScopeReadBackAsWrittenAndUnknownOnesAreRefused) {
  CaseResult c;
  c.op = "all_reduce";
  c.placement = Placement::InPlace;
  c.group.scope = Scope::Rail;
  c.group.id = 3;
  const auto doc = run_document(header(), {c}, {}, {true, "", 0, 0});
  EXPECT_EQ(doc["cases"][0]["placement"], "in_place");
  EXPECT_EQ(doc["cases"][0]["group"]["scope"], "rail");
  const CaseResult back = case_from_json(doc["cases"][0]);
  EXPECT_EQ(back.placement, Placement::InPlace);
  EXPECT_EQ(back.group.scope, Scope::Rail);
  EXPECT_EQ(back.group.id, 3);

  auto bad = doc["cases"][0];
  bad["placement"] = "in-place";
  try {
    case_from_json(bad);
    ADD_FAILURE() << "an unknown placement was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("placement 'in-place' is unknown"), std::string::npos) << e.what();
  }
  bad = doc["cases"][0];
  bad["group"]["scope"] = "pod";
  EXPECT_THROW(case_from_json(bad), std::invalid_argument);
}

TEST(Journal, AppendsEachCaseThenWritesTheFinalFileAtomically) {
  const auto dir = std::filesystem::temp_directory_path() / ("cbjournal" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.json").string();
  {
    Journal j(path, header());
    CaseResult c;
    c.op = "all_to_all";
    j.append(c);
    j.append(c);
    // Killed now, the partial file holds the header and both cases.
    std::istringstream lines(slurp(path + ".partial"));
    std::vector<nlohmann::json> parsed;
    for (std::string l; std::getline(lines, l);) parsed.push_back(nlohmann::json::parse(l));
    ASSERT_EQ(parsed.size(), 3u);
    EXPECT_EQ(parsed[0]["schema"], kPartialSchema);
    EXPECT_EQ(parsed[2]["case"]["op"], "all_to_all");
    EXPECT_FALSE(std::filesystem::exists(path));
    j.finish({{"schema", kRunSchema}});
  }
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_EQ(nlohmann::json::parse(slurp(path))["schema"], kRunSchema);
  EXPECT_THROW(Journal((dir / "missing" / "x.json").string(), header()), std::runtime_error);
  // A folder is refused at once, leaving nothing inside it.
  EXPECT_THROW(Journal(dir.string(), header()), std::runtime_error);
  EXPECT_THROW(Journal(dir.string() + "/", header()), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(dir / ".partial"));
  std::filesystem::remove_all(dir);
}

}  // namespace collbench::report
