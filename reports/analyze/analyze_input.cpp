#include "reports/analyze/analyze_input.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "reports/core/json_input.h"
#include "reports/core/json_numbers.h"

namespace collbench::report {
namespace {

using nlohmann::json;

const std::map<std::string, std::string> kOps{
    {"allreduce", "all_reduce"},        {"allgather", "all_gather"}, {"reducescatter", "reduce_scatter"},
    {"alltoall", "all_to_all"},         {"broadcast", "broadcast"},  {"bcast", "broadcast"},
    {"sendrecv", "sendrecv"},           {"reduce", "reduce"},        {"scatter", "scatter"},
    {"gather", "gather"},               {"hypercube", "hypercube"},  {"alltoallv", "all_to_all_v"}};

std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The collective a file name mentions (longest match first: "allreduce" before "reduce").
std::string op_from_name(std::string_view file_name) {
  const std::string s = squash(file_name);
  std::string best;
  for (const auto& [key, op] : kOps)
    if (s.find(key) != std::string::npos && key.size() > squash(best).size()) best = op;
  return best;
}

// nccl-tests' busbw/algbw ratio gives the rank count: 2(n-1)/n for all_reduce, (n-1)/n for
// all_gather, reduce_scatter and all_to_all.
int ranks_from_ratio(const std::string& op, double algbw, double busbw) {
  if (algbw <= 0 || busbw <= 0) return 0;
  const double r = busbw / algbw;
  double n = 0;
  if (op == "all_reduce" && r < 2) n = 2 / (2 - r);
  else if ((op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") && r < 1) n = 1 / (1 - r);
  return n >= 1 && n < 1e6 ? static_cast<int>(std::lround(n)) : 0;
}

// The collective the bus factor (busbw/algbw at the largest size) points to when nothing names it:
// only all_reduce has a factor above 1, 2(n-1)/n. Below 1, (n-1)/n fits all_gather, reduce_scatter
// and all_to_all alike, and 1 fits broadcast, reduce and sendrecv: those stay unknown, said in `notes`.
std::string op_from_ratio(const std::vector<ParsedRow>& rows, std::vector<std::string>& notes) {
  const ParsedRow* big = nullptr;
  for (const auto& r : rows)
    if (r.out_of_place && r.out_of_place->algbw_gbs > 0 && (!big || r.bytes > big->bytes)) big = &r;
  if (!big) return "";
  const double ratio = big->out_of_place->busbw_gbs / big->out_of_place->algbw_gbs;
  // nccl-tests prints 2 decimals: at 0.01 GB/s a ratio can be off by ~1%.
  if (ratio > 1.02 && ratio < 2) {
    notes.push_back(fmt::format("collective all_reduce inferred from busbw/algbw = {:.3f} at {} B (only all_reduce's "
                                "bus factor 2(n-1)/n exceeds 1); pass --op if that is wrong",
                                ratio, big->bytes));
    return "all_reduce";
  }
  notes.push_back(fmt::format("collective unknown: busbw/algbw = {:.3f} at {} B fits {}; pass --op", ratio, big->bytes,
                              ratio < 0.98 ? "all_gather, reduce_scatter and all_to_all alike"
                                           : "broadcast, reduce and sendrecv alike"));
  return "";
}

CaseResult make_case(const std::string& op, const ParsedRow& row, const ParsedPlacement& p, Placement placement) {
  CaseResult c;
  c.op = op;
  c.dtype = row.type;
  c.redop = row.redop.empty() ? "none" : row.redop;
  c.placement = placement;
  c.root = row.root.value_or(-1);
  c.bytes = c.requested_bytes = row.bytes;
  c.count = row.count;
  c.time_us.mean = c.time_us.median = p.time_us;
  c.time_us.samples = 1;
  c.algbw_gbs = p.algbw_gbs;
  c.busbw_gbs = p.busbw_gbs;
  c.wrong = p.wrong;
  return c;
}

// Fills span and notes from rank lines, hints and, failing those, the bandwidth ratio.
void infer_span(ExternalResults& out, const std::vector<ParsedRank>& ranks, const ResultHints& hints) {
  std::set<int> ids;
  std::vector<std::string> hosts;
  for (const auto& r : ranks) {
    ids.insert(r.rank);
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  out.span.ranks = static_cast<int>(ids.size());
  out.span.hosts = hosts;
  out.span.nodes = static_cast<int>(hosts.size());
  if (hints.nodes > 0) {
    if (out.span.nodes > 0 && out.span.nodes != hints.nodes)
      throw std::invalid_argument(fmt::format(
          "--nodes {} contradicts the file, whose rank lines name {} host(s) ({}); drop --nodes, or give the file "
          "of the run you mean",
          hints.nodes, out.span.nodes, fmt::join(hosts, ", ")));
    out.span.nodes = hints.nodes;
  }
  if (out.span.ranks == 0 && !out.cases.empty()) {
    const CaseResult& big = *std::max_element(out.cases.begin(), out.cases.end(),
                                              [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    out.span.ranks = ranks_from_ratio(big.op, big.algbw_gbs, big.busbw_gbs);
    if (out.span.ranks > 0)
      out.notes.push_back(fmt::format("rank count {} inferred from busbw/algbw at {} B", out.span.ranks, big.bytes));
  }
  if (out.span.nodes == 0) out.notes.push_back("node count unknown: the file names no hosts; pass --nodes");
}

}  // namespace

std::string normalize_op(std::string_view name) {
  std::string s = squash(name);
  if (s.size() > 4 && s.ends_with("perf")) s.resize(s.size() - 4);
  const auto it = kOps.find(s);
  return it != kOps.end() ? it->second : s;
}

ExternalResults from_nccl_tests_text(std::string_view text, std::string_view file_name, const ResultHints& hints) {
  ExternalResults out;
  out.format = "nccl-tests text";
  const ParsedOutput parsed = parse_nccl_tests_output(text);
  out.malformed = parsed.malformed;
  for (const auto& t : parsed.tables) {
    std::string op = !t.collective.empty() ? normalize_op(t.collective) : hints.op;
    if (op.empty()) op = op_from_name(file_name);
    if (op.empty()) op = op_from_ratio(t.rows, out.notes);
    if (op.empty()) op = "unknown";
    for (const auto& row : t.rows) {
      if (row.out_of_place) out.cases.push_back(make_case(op, row, *row.out_of_place, Placement::OutOfPlace));
      if (row.in_place) out.cases.push_back(make_case(op, row, *row.in_place, Placement::InPlace));
    }
  }
  infer_span(out, parsed.ranks, hints);
  // nccl-tests ends each table with its "Avg bus bandwidth" footer. Published excerpts often leave
  // it out, so its absence is said, not judged.
  for (const auto& t : parsed.tables)
    if (!t.avg_busbw_gbs && !t.rows.empty())
      out.notes.push_back(fmt::format("the {} table ends at {} B without the closing \"Avg bus bandwidth\" line: an "
                                      "excerpt, or a run cut short",
                                      t.collective.empty() ? "results" : t.collective, t.rows.back().bytes));
  return out;
}

ExternalResults from_nccl_tests_json(const json& doc, std::string_view file_name, const ResultHints& hints) {
  ExternalResults out;
  out.format = "nccl-tests json";
  std::string op = hints.op;
  object_of(doc, "the document", "an nccl-tests -J document");
  if (op.empty() && doc.contains("args") && doc["args"].is_array() && !doc["args"].empty() && doc["args"][0].is_string())
    op = normalize_op(op_from_name(doc["args"][0].get<std::string>()));
  if (op.empty()) op = op_from_name(file_name);
  if (op.empty()) op = "unknown";
  const json& results = array_field(doc, "results");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = fmt::format("results[{}]", i);
    const json& r = object_of(results[i], where, "a result");
    reading(where, [&] {
      ParsedRow row;
      row.bytes = whole_value(r, "size", std::uint64_t{0});
      row.count = whole_value(r, "count", std::uint64_t{0});
      row.type = string_field(r, "type");
      row.redop = string_field(r, "redop");
      for (const Placement placement : {Placement::OutOfPlace, Placement::InPlace}) {
        const char* key = placement_name(placement);  // nccl-tests' JSON keys are these names
        if (!r.contains(key) || !r[key].is_object()) continue;
        const json& p = r[key];
        ParsedPlacement pp;
        pp.time_us = p.contains("time") ? number_field(p, "time") : number_field(p, "cpu_time");
        pp.algbw_gbs = number_field(p, "alg_bw");
        pp.busbw_gbs = number_field(p, "bus_bw");
        if (p.contains("nwrong") && p["nwrong"].is_number()) pp.wrong = whole_number<std::int64_t>(p["nwrong"], "nwrong");
        out.cases.push_back(make_case(op, row, pp, placement));
      }
    });
  }
  std::vector<ParsedRank> ranks;
  if (doc.contains("config") && !doc["config"].is_null()) {
    const json& devices = array_field(object_of(doc["config"], "config"), "devices");
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const std::string where = fmt::format("config.devices[{}]", i);
      const json& d = object_of(devices[i], where, "a device");
      ranks.push_back(reading(where, [&] { return ParsedRank{whole_value(d, "rank", 0), string_field(d, "hostname")}; }));
    }
  }
  infer_span(out, ranks, hints);
  return out;
}

}  // namespace collbench::report
