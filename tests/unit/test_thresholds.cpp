#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "reports/thresholds/threshold_verdicts.h"
#include "reports/thresholds/thresholds.h"
#include "reports/env/known_issues.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

const char* kGood = R"({
  "schema": "collbench.thresholds/1",
  "instance_type": "test.8xlarge",
  "hardware": {"gpus": 8, "gpu": "X", "efa_devices": 4, "efa_gbps": 400, "source": "s"},
  "thresholds": [
    {"op": "all_reduce", "scope": "node", "bytes": 1048576, "fail_below": 10, "warn_below": 20, "basis": "derived", "source": "d"},
    {"op": "all_reduce", "scope": "world", "min_nodes": 2, "max_nodes": 2, "bytes": 1048576, "fail_below": 5, "warn_below": 8, "basis": "published", "source": "u"}
  ]
})";

struct TempFile {
  fs::path path;
  explicit TempFile(const std::string& text, const std::string& name = "test.8xlarge.json") {
    const fs::path dir = fs::temp_directory_path() / ("cbthr" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = dir / name;
    std::ofstream(path) << text;
  }
  ~TempFile() { fs::remove_all(path.parent_path()); }
};

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

CaseResult case_at(const std::string& op, std::uint64_t bytes, double busbw) {
  CaseResult c;
  c.op = op;
  c.dtype = "float";
  c.placement = Placement::OutOfPlace;
  c.bytes = bytes;
  c.busbw_gbs = busbw;
  return c;
}

}  // namespace

TEST(ThresholdLoader, ReadsAGoodFile) {
  TempFile f(kGood);
  const auto t = load_thresholds_file(f.path.string());
  EXPECT_EQ(t.instance_type, "test.8xlarge");
  EXPECT_EQ(t.hardware.efa_devices, 4);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[1].min_nodes, 2);
  EXPECT_EQ(t.rows[1].max_nodes, 2);
  EXPECT_EQ(t.rows[0].min_nodes, 1);
  EXPECT_TRUE(find_thresholds(f.path.parent_path().string(), "test.8xlarge").has_value());
  EXPECT_FALSE(find_thresholds(f.path.parent_path().string(), "other.large").has_value());
}

TEST(ThresholdLoader, RefusesBrokenFilesNamingKeyAndFix) {
  struct Broken {
    std::string from, to, mentions;
  };
  const std::vector<Broken> table{
      {R"("fail_below": 10)", R"("fial_below": 10)", "thresholds[0].fial_below is not a known key"},
      {R"("fail_below": 10)", R"("fail_below": "10")", "thresholds[0].fail_below must be a number"},
      {R"("fail_below": 10)", R"("fail_below": -10)", "thresholds[0].fail_below is negative"},
      {R"("warn_below": 20)", R"("warn_below": 5)", "thresholds[0].warn_below (5) is below fail_below (10)"},
      {R"("scope": "node")", R"("scope": "rack")", "thresholds[0].scope 'rack' is unknown"},
      {R"("op": "all_reduce", "scope": "node")", R"("op": "allreduce", "scope": "node")", "is not a collective"},
      {R"("bytes": 1048576, "fail_below": 5)", R"("bytes": 1.5, "fail_below": 5)", "thresholds[1].bytes must be an integer"},
      {R"("max_nodes": 2,)", R"("max_nodes": 1,)", "max_nodes is below min_nodes"},
      {R"("gpus": 8)", R"("gpus": 8, "nics": 4)", "hardware.nics is not a known key"},
      {R"("schema": "collbench.thresholds/1")", R"("schema": "v2")", "schema is not collbench.thresholds/1"},
      {R"("basis": "derived")", R"("basis": "guess")", "basis 'guess' is unknown"},
      {R"("source": "d")", R"("source": "")", "source is empty"},
      {R"(, "basis": "derived", "source": "d")", "", "thresholds[0].basis is missing"},
      {R"("thresholds": [)", R"("thresholds": {"a": [)", "not valid JSON"},
  };
  for (const auto& b : table) {
    TempFile f(replace(kGood, b.from, b.to));
    try {
      load_thresholds_file(f.path.string());
      ADD_FAILURE() << "accepted: " << b.to;
    } catch (const ThresholdError& e) {
      EXPECT_NE(std::string(e.what()).find(b.mentions), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(f.path.string()), std::string::npos) << "names the file: " << e.what();
    }
  }
  TempFile renamed(kGood, "other.large.json");
  EXPECT_THROW(find_thresholds(renamed.path.parent_path().string(), "other.large"), ThresholdError);
}

TEST(ThresholdLoader, EveryShippedFileLoads) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(COLLBENCH_THRESHOLDS_DIR)) {
    if (e.path().extension() != ".json" || e.path().filename() == kKnownIssuesFile) continue;
    const auto t = load_thresholds_file(e.path().string());
    EXPECT_EQ(t.instance_type + ".json", e.path().filename().string());
    EXPECT_FALSE(t.rows.empty()) << e.path();
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST(ThresholdVerdicts, FailWarnPassBySizeAndNodeCount) {
  TempFile f(kGood);
  const auto t = load_thresholds_file(f.path.string());
  const RunSpan one{1, 8, {"a"}}, two{2, 16, {"a", "b"}};

  auto fs_ = judge_thresholds({case_at("all_reduce", 1 << 20, 9.9)}, t, one);
  ASSERT_EQ(fs_.size(), 1u);
  EXPECT_EQ(fs_[0].code, "BUSBW_BELOW_THRESHOLD");
  EXPECT_EQ(fs_[0].tag, Tag::Fail);
  EXPECT_EQ(fs_[0].reference, "references/performance-testing.md \u00a7 Single-Node Baseline Test");

  fs_ = judge_thresholds({case_at("all_reduce", 1 << 20, 15)}, t, one);
  EXPECT_EQ(fs_[0].code, "BUSBW_LOW");
  EXPECT_EQ(fs_[0].tag, Tag::Warn);

  fs_ = judge_thresholds({case_at("all_reduce", 1 << 20, 25)}, t, one);
  EXPECT_EQ(fs_[0].code, "BUSBW_OK");
  EXPECT_EQ(fs_[0].tag, Tag::Pass);

  // World row, judged at the nearest measured size above the row's.
  fs_ = judge_thresholds({case_at("all_reduce", 1 << 19, 1), case_at("all_reduce", 1 << 21, 6)}, t, two);
  ASSERT_EQ(fs_.size(), 1u);
  EXPECT_EQ(fs_[0].code, "BUSBW_LOW");
  EXPECT_NE(fs_[0].message.find("at 2 MiB"), std::string::npos) << fs_[0].message;
  EXPECT_EQ(fs_[0].reference, "references/performance-testing.md \u00a7 Multi-Node AllReduce Test");

  // A sweep that stopped short is a warning, not a silent pass.
  fs_ = judge_thresholds({case_at("all_reduce", 1 << 19, 100)}, t, two);
  EXPECT_EQ(fs_[0].code, "THRESHOLD_SIZE_NOT_REACHED");
  EXPECT_EQ(fs_[0].tag, Tag::Warn);

  // No row for 3 nodes, or for this op: an INFO, no verdict.
  fs_ = judge_thresholds({case_at("all_reduce", 1 << 20, 1)}, t, RunSpan{3, 24, {}});
  ASSERT_EQ(fs_.size(), 1u);
  EXPECT_EQ(fs_[0].code, "THRESHOLDS_SKIPPED");
  fs_ = judge_thresholds({case_at("all_gather", 1 << 20, 1)}, t, one);
  EXPECT_EQ(fs_[0].code, "THRESHOLDS_SKIPPED");
}

TEST(ThresholdVerdicts, OneNodeIsTheSubjectOfItsOwnBandwidth) {
  TempFile f(kGood);
  const auto t = load_thresholds_file(f.path.string());
  const RunSpan one{1, 2, {"node-a"}, {4, 5}}, two{2, 16, {"a", "b"}, {}};
  for (double busbw : {9.9, 15.0, 25.0}) {
    const auto fs_ = judge_thresholds({case_at("all_reduce", 1 << 20, busbw)}, t, one);
    ASSERT_EQ(fs_.size(), 1u);
    EXPECT_EQ(fs_[0].subject, Subject::node("node-a", {4, 5})) << fs_[0].code;
  }
  EXPECT_EQ(judge_thresholds({case_at("all_reduce", 1 << 20, 1)}, t, two)[0].subject, Subject::world());
  // The sweep's own settings and skipped checks blame no node.
  EXPECT_EQ(judge_thresholds({case_at("all_reduce", 1 << 19, 100)}, t, one)[0].subject, Subject::world());
  EXPECT_EQ(judge_thresholds({case_at("all_gather", 1 << 20, 1)}, t, one)[0].subject, Subject::world());
}

}  // namespace collbench::report
