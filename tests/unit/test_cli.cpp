#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "bench/errors.h"
#include "launcher/commands/command_line.h"

namespace collbench {
namespace {

Command parse(std::vector<std::string> args) { return parse_command_line(args); }

void expect_usage_error(std::vector<std::string> args, const std::string& mentions) {
  try {
    parse(args);
    FAIL() << "accepted " << args.back();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Cli, DefaultsSweepAllReduceAndAllToAllBothPlacements) {
  const Command c = parse({"run"});
  ASSERT_EQ(c.kind, Command::Kind::Run);
  EXPECT_EQ(c.run.ops, (std::vector<Coll>{Coll::AllReduce, Coll::AllToAll}));
  EXPECT_EQ(c.run.placements.size(), 2u);
  EXPECT_EQ(c.run.dtypes, std::vector<DType>{DType::Float});
  EXPECT_EQ(c.run.iters.fixed, 20);
  EXPECT_FALSE(c.run.iters.adaptive);
  EXPECT_EQ(c.run.rank_reduce, RankReduce::Mean);
  EXPECT_EQ(c.run.backend, BackendKind::Auto);
}

TEST(Cli, ParsesNcclTestsStyleOptions) {
  const Command c = parse({"run", "-b", "1M", "-e", "8G", "-f", "4", "-d", "half,bf16", "-o", "max", "-n", "auto",
                           "-w", "2", "-c", "3", "--ops", "all", "--backend", "mpi", "--placement", "in",
                           "--rank-reduce", "max", "--timeout", "5", "--json", "x.json"});
  EXPECT_EQ(c.run.min_bytes, 1u << 20);
  EXPECT_EQ(c.run.max_bytes, 8ull << 30);
  EXPECT_DOUBLE_EQ(c.run.factor, 4);
  EXPECT_EQ(c.run.dtypes, (std::vector<DType>{DType::Half, DType::BFloat16}));
  EXPECT_EQ(c.run.redop, RedOp::Max);
  EXPECT_TRUE(c.run.iters.adaptive);
  EXPECT_EQ(c.run.ops.size(), 6u);
  EXPECT_EQ(c.run.placements, std::vector<Placement>{Placement::InPlace});
  EXPECT_EQ(c.run.backend, BackendKind::Mpi);
  EXPECT_EQ(c.run.json_path, "x.json");
}

TEST(Cli, BadInputIsAUsageErrorNamingTheOption) {
  expect_usage_error({"run", "-b", "10X"}, "-b");
  expect_usage_error({"run", "--ops", "all_reduce,gather"}, "gather");
  expect_usage_error({"run", "-d", "float128"}, "float128");
  expect_usage_error({"run", "-o", "avg"}, "avg");
  expect_usage_error({"run", "--ops", "all_gather", "-o", "max"}, "reduces");
  expect_usage_error({"run", "-n", "ten"}, "-n");
  expect_usage_error({"run", "-n", "0"}, "-n");
  expect_usage_error({"run", "--backend", "gloo"}, "gloo");
  expect_usage_error({"run", "--rank-reduce", "median"}, "median");
  expect_usage_error({"run", "--timeout", "0"}, "--timeout");
  expect_usage_error({"run", "--bogus"}, "--bogus");
  expect_usage_error({"walk"}, "walk");
  expect_usage_error({"run", "--inject", "melt:1"}, "melt");
  expect_usage_error({"run", "--ops", "all_reduce,all_to_al"}, "did you mean all_to_all?");
  expect_usage_error({"run", "-d", "flaot"}, "did you mean float?");
  expect_usage_error({"analyze", "x.txt", "--op", "allreduc"}, "did you mean all_reduce?");
  EXPECT_EQ(parse({"analyze", "x.txt", "--op", "AllReduce"}).analyze.op, "all_reduce");
}

// Checked while parsing, before any rank measures: a typo in the instance type, a thresholds file
// that is missing or has an unknown key. Matching ignores case.
TEST(Cli, InstanceTypeAndThresholdsAreCheckedBeforeAnythingRuns) {
  expect_usage_error({"run", "--instance-type", "p5.48xlarg"}, "did you mean p5.48xlarge?");
  expect_usage_error({"fabric", "--instance-type", "p4d24xlarge"}, "did you mean p4d.24xlarge?");
  expect_usage_error({"analyze", "x.txt", "--instance-type", "banana"}, "give one such as p5.48xlarge");
  EXPECT_EQ(parse({"run", "--instance-type", "P5.48XLARGE"}).verdict.instance_type, "p5.48xlarge");
  // A well-formed type without a profile is not an error: the run says no thresholds applied.
  EXPECT_EQ(parse({"run", "--instance-type", "c5n.18xlarge"}).verdict.instance_type, "c5n.18xlarge");

  const auto dir = std::filesystem::temp_directory_path() / ("cb-cli-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir);
  expect_usage_error({"run", "--thresholds", (dir / "missing.json").string()}, "missing.json");
  const auto bad = dir / "bad.json";
  std::ofstream(bad) << R"({"schema": "collbench.thresholds/1", "instance_type": "p5.48xlarge", "colour": "red",
                           "thresholds": []})";
  for (const char* command : {"run", "analyze", "compare", "fabric"}) {
    std::vector<std::string> args{command};
    if (std::string(command) == "analyze") args.push_back("x.txt");
    if (std::string(command) == "compare") args.insert(args.end(), {"a.json", "b.json"});
    args.insert(args.end(), {"--thresholds", bad.string()});
    expect_usage_error(args, "colour");
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, HuntOptions) {
  const Command c = parse({"hunt", "--pattern", "pairwise", "-b", "1M", "-n", "7", "--backend", "mpi"});
  ASSERT_EQ(c.kind, Command::Kind::Hunt);
  EXPECT_EQ(c.hunt.pattern, "pairwise");
  EXPECT_EQ(c.hunt.bytes, 1u << 20);
  EXPECT_EQ(c.run.iters.fixed, 7);
  EXPECT_EQ(c.run.backend, BackendKind::Mpi);
  EXPECT_EQ(parse({"hunt"}).hunt.pattern, "auto");
  EXPECT_EQ(parse({"hunt", "--json", "h.json"}).run.json_path, "h.json");
  expect_usage_error({"hunt", "--pattern", "star"}, "star");
  expect_usage_error({"hunt", "-b", "1Q"}, "-b");
  expect_usage_error({"run", "--scope", "rack"}, "rack");
}

TEST(Cli, HelpAndVersion) {
  EXPECT_EQ(parse({}).kind, Command::Kind::Help);
  const Command h = parse({"run", "--help"});
  EXPECT_EQ(h.kind, Command::Kind::Help);
  EXPECT_NE(h.text.find("--rank-reduce"), std::string::npos);
  EXPECT_NE(h.text.find("Exit codes"), std::string::npos);
  EXPECT_EQ(h.text.find("--inject"), std::string::npos) << "test hook must stay hidden";
  EXPECT_EQ(parse({"--version"}).kind, Command::Kind::Version);
}

}  // namespace collbench
