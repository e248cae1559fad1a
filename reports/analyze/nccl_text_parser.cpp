#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/utf8.h"

#include <array>
#include <charconv>
#include <regex>
#include <sstream>

namespace collbench::report {
namespace {

constexpr std::array<std::string_view, 14> kTypes{"int8",  "uint8", "int32",    "uint32", "int64",
                                                  "uint64", "half", "float",    "double", "bfloat16",
                                                  "fp8_e4m3", "fp8_e5m2", "char", "int"};
constexpr std::array<std::string_view, 7> kRedops{"sum", "prod", "max", "min", "avg", "none", "mulsum"};

bool one_of(std::string_view s, auto const& set) {
  for (auto x : set)
    if (x == s) return true;
  return false;
}

template <class T> std::optional<T> number(std::string_view s) {
  T v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string strip_prefix(const std::string& line) {
  static const std::regex kTag(R"(^\s*\[\d+,\d+\]<std(out|err)>:)");  // mpirun --tag-output
  static const std::regex kLabel(R"(^\s*\d+:(\s|$))");                 // srun -l
  std::string s = std::regex_replace(line, kTag, "", std::regex_constants::format_first_only);
  s = std::regex_replace(s, kLabel, "", std::regex_constants::format_first_only);
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// time algbw busbw wrong|error, or four N/A.
std::optional<std::optional<ParsedPlacement>> placement(const std::vector<std::string>& t, std::size_t at) {
  if (t[at] == "N/A" && t[at + 1] == "N/A") return std::optional<ParsedPlacement>{};
  ParsedPlacement p;
  auto time = number<double>(t[at]), alg = number<double>(t[at + 1]), bus = number<double>(t[at + 2]);
  if (!time || !alg || !bus) return std::nullopt;
  p.time_us = *time;
  p.algbw_gbs = *alg;
  p.busbw_gbs = *bus;
  const std::string& last = t[at + 3];
  if (auto w = number<std::int64_t>(last)) p.wrong = *w;
  else if (auto e = number<double>(last)) p.error = *e;
  else if (last != "N/A") return std::nullopt;
  return std::optional<ParsedPlacement>{p};
}

// nccl-tests -T appends the time of the row ("2025-03-01 12:00:00"); it is not a measurement.
std::vector<std::string> without_timestamp(std::vector<std::string> t) {
  static const std::regex kDate(R"(\d{4}-\d{2}-\d{2})"), kTime(R"(\d{2}:\d{2}:\d{2})");
  if (t.size() >= 2 && std::regex_match(t[t.size() - 2], kDate) && std::regex_match(t.back(), kTime)) t.resize(t.size() - 2);
  return t;
}

std::optional<ParsedRow> parse_row(std::vector<std::string> t) {
  t = without_timestamp(std::move(t));
  if (t.size() < 11) return std::nullopt;
  auto bytes = number<std::uint64_t>(t[0]), count = number<std::uint64_t>(t[1]);
  if (!bytes || !count || !one_of(t[2], kTypes)) return std::nullopt;
  ParsedRow row{*bytes, *count, t[2], "", std::nullopt, std::nullopt, std::nullopt};
  std::size_t at = 3;
  if (t.size() == 13) {  // redop root
    if (!one_of(t[3], kRedops)) return std::nullopt;
    row.redop = t[3];
    row.root = number<int>(t[4]);
    if (!row.root) return std::nullopt;
    at = 5;
  } else if (t.size() == 12) {  // redop, no root
    if (!one_of(t[3], kRedops)) return std::nullopt;
    row.redop = t[3];
    at = 4;
  } else if (t.size() != 11) {
    return std::nullopt;
  }
  auto oop = placement(t, at), ip = placement(t, at + 4);
  if (!oop || !ip) return std::nullopt;
  row.out_of_place = *oop;
  row.in_place = *ip;
  return row;
}

// Size, count and a datatype at `at`: a row, whether or not the rest of it reads.
bool row_starts_at(const std::vector<std::string>& t, std::size_t at) {
  return t.size() >= at + 3 && number<std::uint64_t>(t[at]) && number<std::uint64_t>(t[at + 1]) &&
         one_of(t[at + 2], kTypes);
}

// A row anywhere in the line: whatever a launcher, a logger or a quote put in front of it (Ray's
// "(head, rank=0, pid=3808)", timestamps, pod names, "> ") is skipped by finding the row's own
// grammar, size, count and datatype followed by a row that reads. `started` says whether a row
// start was seen even when the rest did not read.
std::optional<ParsedRow> find_row(const std::vector<std::string>& t, bool& started) {
  started = false;
  for (std::size_t at = 0; at + 3 <= t.size(); ++at) {
    if (!row_starts_at(t, at)) continue;
    started = true;
    if (auto row = parse_row({t.begin() + static_cast<std::ptrdiff_t>(at), t.end()})) return row;
  }
  return std::nullopt;
}

}  // namespace

std::vector<ParsedTable> parse_nccl_tests(std::string_view text) { return parse_nccl_tests_output(text).tables; }

ParsedOutput parse_nccl_tests_output(std::string_view text) {
  // Unanchored: a line prefix (launcher tags, timestamps, quoting) may come first.
  static const std::regex kCollective(R"(#?\s*Collective test: (\S+))");
  static const std::regex kConcluded(R"(Collective test (?:concluded|starting): (\S+?)(_perf)?\s*$)");
  static const std::regex kOob(R"(Out of bounds values\s*:\s*(\d+))");
  static const std::regex kAvg(R"(Avg bus bandwidth\s*:\s*([0-9.eE+-]+))");
  static const std::regex kRank(R"((?:^|[#\s])\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device)");
  static const std::regex kParams(R"(nThread\s+\d+\s+nGpus\s+(\d+))");

  ParsedOutput result;

  std::vector<ParsedTable>& tables = result.tables;
  ParsedTable cur;
  bool closed = false;  // the current table saw its footer
  const auto flush = [&] {
    if (!cur.rows.empty() || cur.avg_busbw_gbs) tables.push_back(std::move(cur));
    cur = ParsedTable{};
    closed = false;
  };

  std::istringstream in{std::string(text)};
  int line_no = 0;
  for (std::string raw; std::getline(in, raw);) {
    ++line_no;
    raw = valid_utf8(raw);  // what is read from a line may end up in a JSON document
    if (raw.rfind("#@", 0) == 0) continue;  // fixture metadata
    const std::string line = strip_prefix(raw);
    std::smatch m;
    if (std::regex_search(line, m, kCollective)) {
      if (!cur.rows.empty() || closed) flush();
      cur.collective = m[1];
      continue;
    }
    if (std::regex_search(line, m, kConcluded)) {
      if (cur.collective.empty()) cur.collective = m[1];  // the footer follows its table
      continue;
    }
    if (std::regex_search(line, m, kOob)) {
      cur.out_of_bounds = number<std::int64_t>(m[1].str());
      closed = true;
      continue;
    }
    if (std::regex_search(line, m, kAvg)) {
      cur.avg_busbw_gbs = number<double>(m[1].str());
      closed = true;
      continue;
    }
    if (std::regex_search(line, m, kRank)) {
      // A rank number past int is no rank line nccl-tests prints: skipped, never thrown on.
      if (auto rank = number<int>(m[1].str())) result.ranks.push_back({*rank, m[2].str()});
      continue;
    }
    if (std::regex_search(line, m, kParams)) {
      result.gpus_per_process = number<int>(m[1].str()).value_or(0);
      continue;
    }
    bool started = false;
    if (auto row = find_row(split(line), started)) {
      if (closed) flush();
      cur.rows.push_back(*row);
    } else if (started) {
      result.malformed.push_back({line_no, raw});
    }
  }
  flush();
  return result;
}

}  // namespace collbench::report
