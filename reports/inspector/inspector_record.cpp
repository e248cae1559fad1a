#include "reports/inspector/inspector_record.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>

namespace collbench::report::inspector {
namespace {

// Which fields a line has shown, so a missing one can be named.
enum Seen : unsigned {
  kId = 1u << 0, kRank = 1u << 1, kNRanks = 1u << 2, kNNodes = 1u << 3, kVersion = 1u << 4, kTs = 1u << 5,
  kHost = 1u << 6, kPid = 1u << 7, kColl = 1u << 8, kSn = 1u << 9, kBytes = 1u << 10, kExec = 1u << 11,
  kAlg = 1u << 12, kBus = 1u << 13, kHeader = 1u << 14, kMeta = 1u << 15, kCollPerf = 1u << 16,
  kP2pPerf = 1u << 17,
};

// Byte classes, looked up rather than compared one by one: the parse is a walk over every byte.
constexpr unsigned char kSpace = 1, kTokenEnd = 2;
constexpr auto kClass = [] {
  std::array<unsigned char, 256> t{};
  for (unsigned char ch : {' ', '\t', '\r', '\n'}) t[ch] = kSpace | kTokenEnd;
  for (unsigned char ch : {',', '}', ']'}) t[ch] = kTokenEnd;
  return t;
}();
inline bool is(char ch, unsigned char cls) { return kClass[static_cast<unsigned char>(ch)] & cls; }

struct Cursor {
  const char* p;
  const char* end;
  void skip_ws() {
    while (p < end && is(*p, kSpace)) ++p;
  }
};

// The first '"' in [p, end), or end: eight bytes at a time, since a record's strings are a few bytes
// long and a call to memchr for each costs more than the search.
const char* find_quote(const char* p, const char* end) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull, kQuotes = kOnes * '"';
  if constexpr (std::endian::native == std::endian::little)
    for (; end - p >= 8; p += 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      w ^= kQuotes;  // a quote's byte is now zero
      // The lowest flagged byte is the first zero (a borrow can flag only bytes above it).
      const std::uint64_t zero = (w - kOnes) & ~w & kHighs;
      if (zero) return p + std::countr_zero(zero) / 8;
    }
  while (p < end && *p != '"') ++p;
  return p;
}

// A JSON string at c.p (after its opening quote); the view keeps escapes as written, which only
// matters for comm names and host names with quotes in them.
bool read_string(Cursor& c, std::string_view& out) {
  const char* start = c.p;
  for (;;) {
    const char* q = find_quote(c.p, c.end);
    if (q == c.end) return false;
    std::size_t slashes = 0;  // an odd run of backslashes escapes the quote
    for (const char* b = q; b > start && b[-1] == '\\'; --b) ++slashes;
    c.p = q + 1;
    if (slashes % 2 == 0) break;
  }
  out = std::string_view(start, static_cast<std::size_t>(c.p - 1 - start));
  return true;
}

// The scalar token at c.p: a number, true/false/null; stops before , } ] or whitespace.
std::string_view read_token(Cursor& c) {
  const char* start = c.p;
  while (c.p < c.end && !is(*c.p, kTokenEnd)) ++c.p;
  return {start, static_cast<std::size_t>(c.p - start)};
}

bool to_u64(std::string_view t, std::uint64_t& v) {
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool to_int(std::string_view t, int& v) {
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

bool to_double(std::string_view t, double& v) {
  // The plugin writes "%lf": digits, a point, six digits. With at most 15 digits in all they make an
  // exact integer, and one division by an exact power of ten rounds it as from_chars would.
  static constexpr double kTen[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  std::uint64_t m = 0;
  int digits = 0, frac = -1;
  for (const char ch : t) {
    if (ch >= '0' && ch <= '9') {
      m = m * 10 + static_cast<unsigned>(ch - '0');
      ++digits;
      if (frac >= 0) ++frac;
    } else if (ch == '.' && frac < 0) {
      frac = 0;
    } else {
      digits = 99;  // a sign, an exponent, anything else: the general path
      break;
    }
  }
  if (digits > 0 && digits <= 15 && frac != 0 && t.front() != '.') {
    v = static_cast<double>(m) / kTen[frac < 0 ? 0 : frac];
    return true;
  }
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
}

// The record's scalar fields, told apart by length first: one comparison a key, not a dozen.
enum class Field {
  Other, Id, Rank, NRanks, NNodes, Version, Ts, Host, Pid, Coll, Sn, Bytes, Exec, TimingSource, AlgBw, BusBw,
};

Field field_of(std::string_view k) {
  switch (k.size()) {
    case 2: return k == "id" ? Field::Id : Field::Other;
    case 3: return k == "pid" ? Field::Pid : Field::Other;
    case 4: return k == "rank" ? Field::Rank : k == "coll" ? Field::Coll : Field::Other;
    case 6: return k == "nnodes" ? Field::NNodes : Field::Other;
    case 7: return k == "n_ranks" ? Field::NRanks : k == "coll_sn" ? Field::Sn : Field::Other;
    case 8: return k == "hostname" ? Field::Host : Field::Other;
    case 14: return k == "coll_busbw_gbs" ? Field::BusBw : Field::Other;
    case 15: return k == "coll_algobw_gbs" ? Field::AlgBw : Field::Other;
    case 17: return k == "dump_timestamp_us" ? Field::Ts : k == "coll_exec_time_us" ? Field::Exec : Field::Other;
    case 18: return k == "coll_timing_source" ? Field::TimingSource : Field::Other;
    case 19: return k == "coll_msg_size_bytes" ? Field::Bytes : Field::Other;
    case 31: return k == "inspector_output_format_version" ? Field::Version : Field::Other;
    default: return Field::Other;
  }
}

}  // namespace

LineKind parse_line(std::string_view line, Record& out, std::string_view& error) {
  out = Record{};
  Cursor c{line.data(), line.data() + line.size()};
  c.skip_ws();
  if (c.p >= c.end || *c.p != '{') return LineKind::NotInspector;
  unsigned seen = 0;
  bool in_trace = false;  // inside event_trace_*: its keys are not the record's
  int depth = 0;
  int trace_depth = 0;
  std::string_view key, sval, tok, field_error;
  while (c.p < c.end) {
    const char ch = *c.p;
    if (ch == '{' || ch == '[') {
      ++depth, ++c.p;
      continue;
    }
    if (ch == '}' || ch == ']') {
      if (in_trace && depth == trace_depth) in_trace = false;
      --depth, ++c.p;
      continue;
    }
    if (ch != '"') {
      ++c.p;
      continue;
    }
    ++c.p;
    if (!read_string(c, key)) break;
    c.skip_ws();
    if (c.p >= c.end || *c.p != ':') continue;  // a string value, not a key
    ++c.p;
    c.skip_ws();
    if (c.p >= c.end) break;
    if (*c.p == '{' || *c.p == '[') {
      if (key == "header") seen |= kHeader;
      else if (key == "metadata") seen |= kMeta;
      else if (key == "coll_perf") seen |= kCollPerf;
      else if (key == "p2p_perf") seen |= kP2pPerf;
      else if (!in_trace && key.starts_with("event_trace")) in_trace = true, trace_depth = depth + 1;
      continue;
    }
    const bool is_string = *c.p == '"';
    if (is_string) {
      ++c.p;
      if (!read_string(c, sval)) break;
    } else {
      tok = read_token(c);
    }
    if (in_trace) continue;
    // A field's error counts once the line is known to be a record: other JSON has "rank" keys too.
    auto bad = [&](std::string_view what) {
      if (field_error.empty()) field_error = what;
    };
    // Each field's value checked for its type, stored and marked seen; a wrong one is the line's error.
    auto text = [&](std::string_view& to, unsigned bit, std::string_view what) {
      if (!is_string) return bad(what);
      to = sval, seen |= bit;
    };
    auto whole = [&](std::uint64_t& to, unsigned bit, std::string_view what) {
      if (is_string || !to_u64(tok, to)) return bad(what);
      seen |= bit;
    };
    auto whole_int = [&](int& to, int least, int most, unsigned bit, std::string_view what) {
      if (is_string || !to_int(tok, to) || to < least || to > most) return bad(what);
      seen |= bit;
    };
    auto bandwidth = [&](double& to, unsigned bit) {
      if (is_string) {
        if (sval != "nan") return bad("coll_perf bandwidth is a string other than \"nan\"");
        to = std::numeric_limits<double>::quiet_NaN();  // json.cc writes NaN so
      } else if (!to_double(tok, to)) {
        return bad("coll_perf bandwidth is not a number");
      }
      seen |= bit;
    };
    constexpr int kAny = std::numeric_limits<int>::max();
    switch (field_of(key)) {
      case Field::Other: break;
      case Field::Id: text(out.comm_id, kId, "header.id is not a string"); break;
      case Field::Rank: whole_int(out.rank, 0, kAny, kRank, "header.rank is not a whole number >= 0"); break;
      case Field::NRanks:
        whole_int(out.n_ranks, 1, kMaxRanks, kNRanks, "header.n_ranks is not a whole number from 1 to 1048576");
        break;
      case Field::NNodes: whole_int(out.nnodes, 0, kAny, kNNodes, "header.nnodes is not a whole number"); break;
      case Field::Version:
        text(out.version, kVersion, "metadata.inspector_output_format_version is not a string");
        break;
      case Field::Ts: whole(out.dump_ts_us, kTs, "metadata.dump_timestamp_us is not a whole number"); break;
      case Field::Host: text(out.hostname, kHost, "metadata.hostname is not a string"); break;
      case Field::Pid: whole(out.pid, kPid, "metadata.pid is not a whole number"); break;
      case Field::Coll: text(out.coll, kColl, "coll_perf.coll is not a string"); break;
      case Field::Sn: whole(out.sn, kSn, "coll_perf.coll_sn is not a whole number"); break;
      case Field::Bytes: whole(out.bytes, kBytes, "coll_perf.coll_msg_size_bytes is not a whole number"); break;
      case Field::Exec: whole(out.exec_us, kExec, "coll_perf.coll_exec_time_us is not a whole number"); break;
      case Field::TimingSource: out.timing_source = sval; break;
      case Field::AlgBw: bandwidth(out.algbw_gbs, kAlg); break;
      case Field::BusBw: bandwidth(out.busbw_gbs, kBus); break;
    }
  }
  if (!(seen & kHeader) || !(seen & kMeta) || !(seen & (kCollPerf | kP2pPerf))) return LineKind::NotInspector;
  if (!field_error.empty()) {
    error = field_error;
    return LineKind::Broken;
  }
  if (depth != 0) {
    error = "the object is not closed";
    return LineKind::Broken;
  }
  static constexpr std::pair<unsigned, const char*> kNeeded[] = {
      {kId, "header.id is missing"},
      {kRank, "header.rank is missing"},
      {kNRanks, "header.n_ranks is missing"},
      {kVersion, "metadata.inspector_output_format_version is missing"},
      {kTs, "metadata.dump_timestamp_us is missing"},
      {kHost, "metadata.hostname is missing"},
      {kPid, "metadata.pid is missing"},
  };
  for (const auto& [bit, what] : kNeeded)
    if (!(seen & bit)) {
      error = what;
      return LineKind::Broken;
    }
  if (out.rank >= out.n_ranks) {
    error = "header.rank is not below header.n_ranks";
    return LineKind::Broken;
  }
  if (seen & kCollPerf) {
    static constexpr std::pair<unsigned, const char*> kPerf[] = {
        {kColl, "coll_perf.coll is missing"},
        {kSn, "coll_perf.coll_sn is missing"},
        {kBytes, "coll_perf.coll_msg_size_bytes is missing"},
        {kExec, "coll_perf.coll_exec_time_us is missing"},
        {kBus, "coll_perf.coll_busbw_gbs is missing"},
    };
    for (const auto& [bit, what] : kPerf)
      if (!(seen & bit)) {
        error = what;
        return LineKind::Broken;
      }
  } else {
    out.p2p = true;
  }
  return LineKind::Record;
}

bool is_prometheus_line(std::string_view line) {
  for (std::string_view comment : {"# HELP ", "# TYPE "})  // a textfile may carry these before its samples
    if (line.starts_with(comment)) line.remove_prefix(comment.size());
  static constexpr std::string_view kMetrics[] = {"nccl_bus_bandwidth_gbs", "nccl_collective_exec_time_microseconds",
                                                  "nccl_p2p_bus_bandwidth_gbs", "nccl_p2p_exec_time_microseconds",
                                                  "nccl_collectives_total", "nccl_collectives_dropped_total",
                                                  "nccl_p2p_total", "nccl_p2p_dropped_total"};
  for (std::string_view m : kMetrics)
    if (line.starts_with(m) && line.size() > m.size() && (line[m.size()] == '{' || line[m.size()] == ' '))
      return true;
  return false;
}

}  // namespace collbench::report::inspector
