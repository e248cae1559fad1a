#include "reports/inspector/inspector_record.h"

#include <charconv>
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

struct Cursor {
  const char* p;
  const char* end;
  void skip_ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  }
};

// A JSON string at c.p (after its opening quote); the view keeps escapes as written, which only
// matters for comm names and host names with quotes in them.
bool read_string(Cursor& c, std::string_view& out) {
  const char* start = c.p;
  for (;;) {
    const char* q = static_cast<const char*>(std::memchr(c.p, '"', static_cast<std::size_t>(c.end - c.p)));
    if (!q) return false;
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
  while (c.p < c.end && *c.p != ',' && *c.p != '}' && *c.p != ']' && *c.p != ' ' && *c.p != '\t' && *c.p != '\r' &&
         *c.p != '\n')
    ++c.p;
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
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  return r.ec == std::errc() && r.ptr == t.data() + t.size();
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
    if (key == "id") {
      if (!is_string) {
        bad("header.id is not a string");
        continue;
      }
      out.comm_id = sval, seen |= kId;
    } else if (key == "rank") {
      if (is_string || !to_int(tok, out.rank) || out.rank < 0) {
        bad("header.rank is not a whole number >= 0");
        continue;
      }
      seen |= kRank;
    } else if (key == "n_ranks") {
      if (is_string || !to_int(tok, out.n_ranks) || out.n_ranks <= 0 || out.n_ranks > kMaxRanks)
        {
        bad("header.n_ranks is not a whole number from 1 to 1048576");
        continue;
      }
      seen |= kNRanks;
    } else if (key == "nnodes") {
      if (is_string || !to_int(tok, out.nnodes) || out.nnodes < 0) {
        bad("header.nnodes is not a whole number");
        continue;
      }
      seen |= kNNodes;
    } else if (key == "inspector_output_format_version") {
      if (!is_string) {
        bad("metadata.inspector_output_format_version is not a string");
        continue;
      }
      out.version = sval, seen |= kVersion;
    } else if (key == "dump_timestamp_us") {
      if (is_string || !to_u64(tok, out.dump_ts_us)) {
        bad("metadata.dump_timestamp_us is not a whole number");
        continue;
      }
      seen |= kTs;
    } else if (key == "hostname") {
      if (!is_string) {
        bad("metadata.hostname is not a string");
        continue;
      }
      out.hostname = sval, seen |= kHost;
    } else if (key == "pid") {
      if (is_string || !to_u64(tok, out.pid)) {
        bad("metadata.pid is not a whole number");
        continue;
      }
      seen |= kPid;
    } else if (key == "coll") {
      if (!is_string) {
        bad("coll_perf.coll is not a string");
        continue;
      }
      out.coll = sval, seen |= kColl;
    } else if (key == "coll_sn") {
      if (is_string || !to_u64(tok, out.sn)) {
        bad("coll_perf.coll_sn is not a whole number");
        continue;
      }
      seen |= kSn;
    } else if (key == "coll_msg_size_bytes") {
      if (is_string || !to_u64(tok, out.bytes)) {
        bad("coll_perf.coll_msg_size_bytes is not a whole number");
        continue;
      }
      seen |= kBytes;
    } else if (key == "coll_exec_time_us") {
      if (is_string || !to_u64(tok, out.exec_us)) {
        bad("coll_perf.coll_exec_time_us is not a whole number");
        continue;
      }
      seen |= kExec;
    } else if (key == "coll_timing_source") {
      out.timing_source = sval;
    } else if (key == "coll_algobw_gbs" || key == "coll_busbw_gbs") {
      double v = 0;
      if (is_string) {
        if (sval != "nan") {
          bad("coll_perf bandwidth is a string other than \"nan\"");
          continue;
        }
        v = std::numeric_limits<double>::quiet_NaN();  // json.cc writes NaN so
      } else if (!to_double(tok, v)) {
        bad("coll_perf bandwidth is not a number");
        continue;
      }
      if (key == "coll_algobw_gbs") out.algbw_gbs = v, seen |= kAlg;
      else out.busbw_gbs = v, seen |= kBus;
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
