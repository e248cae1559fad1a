#include <gtest/gtest.h>

#include "reports/analyze_input.h"

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
  const auto unknown = from_nccl_tests_text(row, "results.txt", {});
  EXPECT_EQ(unknown.cases[0].op, "unknown");
  EXPECT_EQ(unknown.span.nodes, 0);
  EXPECT_EQ(unknown.notes.size(), 2u);  // collective unknown, node count unknown
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
