#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/utf8.h"

#include <array>
#include <charconv>
#include <span>

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

// The line grammar below is read by hand, each line once from left to right: std::regex searches
// backtrack, took quadratic time on long lines (16 KiB of blanks, a row repeated) and overflowed
// the stack on longer ones.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A cursor over one line; each reader moves past what it read and says whether it did.
struct Cursor {
  std::string_view s;
  std::size_t at = 0;

  bool done() const { return at >= s.size(); }
  std::size_t skip_spaces() {  // \s*: how many
    const std::size_t from = at;
    while (!done() && is_space(s[at])) ++at;
    return at - from;
  }
  bool spaces() { return skip_spaces() > 0; }  // \s+
  bool word(std::string_view w) {
    if (s.substr(at).substr(0, w.size()) != w) return false;
    at += w.size();
    return true;
  }
  template <class Pred> std::string_view run(Pred pred) {  // the longest run of chars that pred accepts
    const std::size_t from = at;
    while (!done() && pred(s[at])) ++at;
    return s.substr(from, at - from);
  }
  std::string_view digits() { return run(is_digit); }
  std::string_view non_spaces() { return run([](char c) { return !is_space(c); }); }
};

// Tries `read` at every place `key` occurs in `line`, left to right, and returns the first capture it
// gives: the leftmost match, as a regex search would find it.
template <class Read> std::optional<std::string_view> search(std::string_view line, std::string_view key, Read read) {
  for (std::size_t p = line.find(key); p != std::string_view::npos; p = line.find(key, p + 1)) {
    Cursor c{line, p + key.size()};
    if (auto got = read(c, p)) return got;
  }
  return std::nullopt;
}

// mpirun --tag-output's "[1,0]<stdout>:", then srun -l's "0: " (the label and one blank after it),
// each only at the start of the line.
std::string_view strip_prefix(std::string_view line) {
  Cursor tag{line};
  tag.skip_spaces();
  if (tag.word("[") && !tag.digits().empty() && tag.word(",") && !tag.digits().empty() && tag.word("]<std") &&
      (tag.word("out>:") || tag.word("err>:")))
    line.remove_prefix(tag.at);
  Cursor label{line};
  label.skip_spaces();
  if (!label.digits().empty() && label.word(":")) {
    if (label.done()) return {};
    if (is_space(line[label.at])) return line.substr(label.at + 1);
  }
  return line;
}

// "Collective test: X" anywhere: X.
std::optional<std::string_view> collective_name(std::string_view line) {
  return search(line, "Collective test: ", [](Cursor& c, std::size_t) -> std::optional<std::string_view> {
    auto name = c.non_spaces();
    return name.empty() ? std::nullopt : std::optional(name);
  });
}

// "Collective test concluded: X_perf" or "... starting: X" ending the line: X without "_perf".
std::optional<std::string_view> concluded_name(std::string_view line) {
  return search(line, "Collective test ", [](Cursor& c, std::size_t) -> std::optional<std::string_view> {
    if (!c.word("concluded: ") && !c.word("starting: ")) return std::nullopt;
    std::string_view name = c.non_spaces();
    c.skip_spaces();
    if (name.empty() || !c.done()) return std::nullopt;
    if (name.size() > 5 && name.ends_with("_perf")) name.remove_suffix(5);
    return name;
  });
}

// "KEY : VALUE" anywhere, VALUE the longest run of chars `accept` takes (at least one).
template <class Accept> std::optional<std::string_view> keyed(std::string_view line, std::string_view key, Accept accept) {
  return search(line, key, [&](Cursor& c, std::size_t) -> std::optional<std::string_view> {
    c.skip_spaces();
    if (!c.word(":")) return std::nullopt;
    c.skip_spaces();
    auto value = c.run(accept);
    return value.empty() ? std::nullopt : std::optional(value);
  });
}

// "#  Rank  0 Group  0 Pid 6899 on host-a device  0": the rank and the host. "Rank" starts the line or
// follows a blank or '#'; "Group N" is optional.
std::optional<std::pair<std::string_view, std::string_view>> rank_line(std::string_view line) {
  std::string_view host;
  auto rank = search(line, "Rank", [&](Cursor& c, std::size_t p) -> std::optional<std::string_view> {
    if (p > 0 && line[p - 1] != '#' && !is_space(line[p - 1])) return std::nullopt;
    if (!c.spaces()) return std::nullopt;
    auto number = c.digits();
    if (number.empty() || !c.spaces()) return std::nullopt;
    if (c.word("Group")) {
      if (!c.spaces() || c.digits().empty() || !c.spaces()) return std::nullopt;
    }
    if (!c.word("Pid") || !c.spaces() || c.digits().empty() || !c.spaces() || !c.word("on") || !c.spaces())
      return std::nullopt;
    host = c.non_spaces();
    if (host.empty() || !c.spaces() || !c.word("device")) return std::nullopt;
    return number;
  });
  if (!rank) return std::nullopt;
  return std::pair{*rank, host};
}

// "nThread 1 nGpus N": N.
std::optional<std::string_view> gpus_per_process(std::string_view line) {
  return search(line, "nThread", [](Cursor& c, std::size_t) -> std::optional<std::string_view> {
    if (!c.spaces() || c.digits().empty() || !c.spaces() || !c.word("nGpus") || !c.spaces()) return std::nullopt;
    auto n = c.digits();
    return n.empty() ? std::nullopt : std::optional(n);
  });
}

using Tokens = std::span<const std::string_view>;

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  Cursor c{s};
  for (c.skip_spaces(); !c.done(); c.skip_spaces()) out.push_back(c.non_spaces());
  return out;
}

// time algbw busbw wrong|error, or four N/A.
std::optional<std::optional<ParsedPlacement>> placement(Tokens t, std::size_t at) {
  if (t[at] == "N/A" && t[at + 1] == "N/A") return std::optional<ParsedPlacement>{};
  ParsedPlacement p;
  auto time = number<double>(t[at]), alg = number<double>(t[at + 1]), bus = number<double>(t[at + 2]);
  if (!time || !alg || !bus) return std::nullopt;
  p.time_us = *time;
  p.algbw_gbs = *alg;
  p.busbw_gbs = *bus;
  const std::string_view last = t[at + 3];
  if (auto w = number<std::int64_t>(last)) p.wrong = *w;
  else if (auto e = number<double>(last)) p.error = *e;
  else if (last != "N/A") return std::nullopt;
  return std::optional<ParsedPlacement>{p};
}

// Exactly `digits` digits.
bool digits_of(std::string_view s, std::size_t at, std::size_t digits) {
  for (std::size_t i = at; i < at + digits; ++i)
    if (!is_digit(s[i])) return false;
  return true;
}
bool is_date(std::string_view s) {  // 2025-03-01
  return s.size() == 10 && digits_of(s, 0, 4) && s[4] == '-' && digits_of(s, 5, 2) && s[7] == '-' && digits_of(s, 8, 2);
}
bool is_clock(std::string_view s) {  // 12:00:00
  return s.size() == 8 && digits_of(s, 0, 2) && s[2] == ':' && digits_of(s, 3, 2) && s[5] == ':' && digits_of(s, 6, 2);
}

// nccl-tests -T appends the time of the row ("2025-03-01 12:00:00"); it is not a measurement.
Tokens without_timestamp(Tokens t) {
  if (t.size() >= 2 && is_date(t[t.size() - 2]) && is_clock(t.back())) return t.first(t.size() - 2);
  return t;
}

std::optional<ParsedRow> parse_row(Tokens t) {
  t = without_timestamp(t);
  if (t.size() < 11) return std::nullopt;
  auto bytes = number<std::uint64_t>(t[0]), count = number<std::uint64_t>(t[1]);
  if (!bytes || !count || !one_of(t[2], kTypes)) return std::nullopt;
  ParsedRow row{*bytes, *count, std::string(t[2]), "", std::nullopt, std::nullopt, std::nullopt};
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
bool row_starts_at(Tokens t, std::size_t at) {
  return t.size() >= at + 3 && number<std::uint64_t>(t[at]) && number<std::uint64_t>(t[at + 1]) &&
         one_of(t[at + 2], kTypes);
}

// A row anywhere in the line: whatever a launcher, a logger or a quote put in front of it (Ray's
// "(head, rank=0, pid=3808)", timestamps, pod names, "> ") is skipped by finding the row's own
// grammar, size, count and datatype followed by a row that reads. `started` says whether a row
// start was seen even when the rest did not read.
std::optional<ParsedRow> find_row(Tokens t, bool& started) {
  started = false;
  for (std::size_t at = 0; at + 3 <= t.size(); ++at) {
    if (!row_starts_at(t, at)) continue;
    started = true;
    if (auto row = parse_row(t.subspan(at))) return row;
  }
  return std::nullopt;
}

}  // namespace

std::vector<ParsedTable> parse_nccl_tests(std::string_view text) { return parse_nccl_tests_output(text).tables; }

ParsedOutput parse_nccl_tests_output(std::string_view text) {
  ParsedOutput result;

  std::vector<ParsedTable>& tables = result.tables;
  ParsedTable cur;
  bool closed = false;  // the current table saw its footer
  const auto flush = [&] {
    if (!cur.rows.empty() || cur.avg_busbw_gbs) tables.push_back(std::move(cur));
    cur = ParsedTable{};
    closed = false;
  };

  int line_no = 0;
  // Line by line as std::getline splits them (no empty line after a final newline), without copying the text.
  for (std::size_t next = 0; next < text.size();) {
    std::size_t end = text.find('\n', next);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view piece = text.substr(next, end - next);
    next = end + 1;
    ++line_no;
    const std::string raw = valid_utf8(piece);  // what is read from a line may end up in a JSON document
    if (raw.rfind("#@", 0) == 0) continue;  // fixture metadata
    const std::string_view line = strip_prefix(raw);
    if (auto name = collective_name(line)) {
      if (!cur.rows.empty() || closed) flush();
      cur.collective = *name;
      continue;
    }
    if (auto name = concluded_name(line)) {
      if (cur.collective.empty()) cur.collective = *name;  // the footer follows its table
      continue;
    }
    // Unanchored, as all of these: a line prefix (launcher tags, timestamps, quoting) may come first.
    if (auto oob = keyed(line, "Out of bounds values", is_digit)) {
      cur.out_of_bounds = number<std::int64_t>(*oob);
      closed = true;
      continue;
    }
    if (auto avg = keyed(line, "Avg bus bandwidth", [](char c) {
          return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
        })) {
      cur.avg_busbw_gbs = number<double>(*avg);
      closed = true;
      continue;
    }
    if (auto rank = rank_line(line)) {
      // A rank number past int is no rank line nccl-tests prints: skipped, never thrown on.
      if (auto n = number<int>(rank->first)) result.ranks.push_back({*n, std::string(rank->second)});
      continue;
    }
    if (auto gpus = gpus_per_process(line)) {
      result.gpus_per_process = number<int>(*gpus).value_or(0);
      continue;
    }
    bool started = false;
    const std::vector<std::string_view> tokens = split(line);
    if (auto row = find_row(tokens, started)) {
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
