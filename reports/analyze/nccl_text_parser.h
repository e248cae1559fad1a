// Reads nccl-tests result tables out of the text people really paste: rank prefixes from mpirun
// --tag-output and srun -l, NCCL INFO lines in between, old layouts (no root column, a float
// "error" column, a blank redop), N/A columns, '#' stripped by other tools. collbench's own text
// output is read by the same code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::report {

struct ParsedPlacement {
  double time_us = 0, algbw_gbs = 0, busbw_gbs = 0;
  std::optional<std::int64_t> wrong;  // the #wrong column; nullopt for N/A or the old error column
  std::optional<double> error;        // the old "error" column (max relative error)
};

struct ParsedRow {
  std::uint64_t bytes = 0, count = 0;
  std::string type, redop;  // redop empty in old all-to-all layouts
  std::optional<int> root;  // absent in old layouts
  std::optional<ParsedPlacement> out_of_place, in_place;  // nullopt when printed as N/A
};

struct ParsedTable {
  std::string collective;  // from "# Collective test: X" or "Collective test concluded: X_perf", else empty
  std::vector<ParsedRow> rows;
  std::optional<std::int64_t> out_of_bounds;
  std::optional<double> avg_busbw_gbs;
};

// "#  Rank  0 Group  0 Pid   6899 on host-a device  0 [0000:04:00] NVIDIA H100 80GB HBM3"
struct ParsedRank {
  int rank = 0;
  std::string host;
};

// A line that starts like a table row (size, count, type) but could not be read as one.
struct MalformedLine {
  int line = 0;  // 1-based
  std::string text;
};

struct ParsedOutput {
  std::vector<ParsedTable> tables;
  std::vector<ParsedRank> ranks;
  std::vector<MalformedLine> malformed;
  int gpus_per_process = 0;  // from "# nThread 1 nGpus N ..."; 0 when absent
};

ParsedOutput parse_nccl_tests_output(std::string_view text);
// The tables only.
std::vector<ParsedTable> parse_nccl_tests(std::string_view text);

}  // namespace collbench::report
