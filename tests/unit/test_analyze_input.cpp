#include <gtest/gtest.h>

#include "reports/analyze/analyze_input.h"

namespace collbench::report {

TEST(AnalyzeInput, NormalizesNcclTestsOpNames) {
  EXPECT_EQ(normalize_op("all_reduce_perf"), "all_reduce");
  EXPECT_EQ(normalize_op("AllReduce"), "all_reduce");
  EXPECT_EQ(normalize_op("alltoall"), "all_to_all");
  EXPECT_EQ(normalize_op("reduce_scatter_perf"), "reduce_scatter");
  EXPECT_EQ(normalize_op("sendrecv_perf"), "sendrecv");
}

TEST(AnalyzeInput, TextRanksFromDeviceLinesAndOpFromFooter) {
  const std::string text =
      "#  Rank  0 Group  0 Pid   11 on hostA device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid   12 on hostB device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "     1048576        262144     float     sum      -1    10.00  104.86  104.86       0    10.00  104.86  104.86    N/A\n"
      "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 104.86\n#\n# Collective test concluded: all_reduce_perf\n";
  const auto r = from_nccl_tests_text(text, "log.txt", {});
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].op, "all_reduce");
  EXPECT_EQ(r.cases[0].wrong, 0);
  EXPECT_FALSE(r.cases[1].wrong.has_value());
  EXPECT_EQ(r.span.ranks, 2);
  EXPECT_EQ(r.span.nodes, 2);
  EXPECT_EQ(r.span.hosts, (std::vector<std::string>{"hostA", "hostB"}));
}

TEST(AnalyzeInput, RanksInferredFromBusbwOverAlgbwWhenNoDeviceLines) {
  const std::string row =
      "  2147483648     536870912     float     sum      -1   9175.1  234.05  438.85      0   9166.2  234.28  439.28      0\n";
  const auto r = from_nccl_tests_text(row, "all_reduce_2x_p5.txt", {2, ""});
  EXPECT_EQ(r.cases[0].op, "all_reduce") << "from the file name";
  EXPECT_EQ(r.span.ranks, 16);
  EXPECT_EQ(r.span.nodes, 2) << "from --nodes";
  // No name anywhere: busbw/algbw = 1.875 > 1 is all_reduce's bus factor 2(n-1)/n, n = 16.
  const auto inferred = from_nccl_tests_text(row, "results.txt", {});
  EXPECT_EQ(inferred.cases[0].op, "all_reduce");
  EXPECT_EQ(inferred.span.ranks, 16);
  EXPECT_EQ(inferred.span.nodes, 0);
  ASSERT_GE(inferred.notes.size(), 1u);
  EXPECT_NE(inferred.notes[0].find("all_reduce inferred from busbw/algbw = 1.875"), std::string::npos)
      << inferred.notes[0];
  // (n-1)/n fits all_gather, reduce_scatter and all_to_all alike: not guessed.
  const std::string gather_row =
      "  1073741824      16777216     float    none      -1   9175.1  117.03  109.71      0   9166.2  117.14  109.82      0\n";
  const auto ambiguous = from_nccl_tests_text(gather_row, "results.txt", {});
  EXPECT_EQ(ambiguous.cases[0].op, "unknown");
  ASSERT_GE(ambiguous.notes.size(), 1u);
  EXPECT_NE(ambiguous.notes[0].find("all_gather, reduce_scatter and all_to_all alike"), std::string::npos)
      << ambiguous.notes[0];
}

TEST(AnalyzeInput, NodesThatContradictTheHostLinesAreRefused) {
  const std::string text =
      "#  Rank  0 Group  0 Pid   6899 on host-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
      "#  Rank  1 Group  0 Pid   6900 on host-a device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"
      "  2147483648     536870912     float     sum      -1   9175.1  234.05  234.05      0   9166.2  234.28  234.28      0\n";
  EXPECT_EQ(from_nccl_tests_text(text, "all_reduce.txt", {1, ""}).span.nodes, 1);
  try {
    from_nccl_tests_text(text, "all_reduce.txt", {4, ""});
    FAIL() << "--nodes 4 against one host was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--nodes 4 contradicts the file, whose rank lines name 1 host(s) (host-a)"),
              std::string::npos)
        << e.what();
  }
}

TEST(AnalyzeInput, NcclTestsJsonResults) {
  const auto doc = nlohmann::json::parse(R"({
    "version": 2, "args": ["./build/alltoall_perf", "-b", "8"],
    "config": {"ngpus": 1, "devices": [
      {"rank": 0, "hostname": "n1", "device": 0}, {"rank": 1, "hostname": "n1", "device": 1},
      {"rank": 2, "hostname": "n2", "device": 0}, {"rank": 3, "hostname": "n2", "device": 1}]},
    "results": [
      {"size": 1048576, "count": 65536, "type": "float", "redop": "none", "root": "    -1",
       "out_of_place": {"time": 50.0, "alg_bw": 20.97, "bus_bw": 15.73, "nwrong": 0.0},
       "in_place": {"time": 51.0, "alg_bw": 20.56, "bus_bw": 15.42, "nwrong": null},
       "actual_iterations": 20, "experiment_name": ""}]})");
  const auto r = from_nccl_tests_json(doc, "x.json", {});
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_EQ(r.cases[0].op, "all_to_all");
  EXPECT_DOUBLE_EQ(r.cases[0].busbw_gbs, 15.73);
  EXPECT_EQ(r.cases[0].wrong, 0);
  EXPECT_FALSE(r.cases[1].wrong.has_value());
  EXPECT_EQ(r.span.ranks, 4);
  EXPECT_EQ(r.span.nodes, 2);
}

}  // namespace collbench::report
