#include "reports/core/text_table.h"

#include <fmt/format.h>

namespace collbench::report {
namespace {

std::string placement_columns(const CaseResult* c) {
  if (c == nullptr) return fmt::format("  {:>7}  {:>6}  {:>6}  {:>6}", "N/A", "N/A", "N/A", "N/A");
  const std::string wrong = c->wrong ? std::to_string(*c->wrong) : "N/A";
  return fmt::format("  {:>7}  {:>6.2f}  {:>6.2f}  {:>6}", format_time_us(c->time_us.mean), c->algbw_gbs,
                     c->busbw_gbs, wrong);
}

std::string versions_line(const WorldInfo& w) {
  std::string out;
  for (const auto& [k, v] : w.versions) out += fmt::format("{}{}={}", out.empty() ? "" : ", ", k, v);
  return out.empty() ? "none found" : out;
}

}  // namespace

std::string format_time_us(double us) {
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string format_ranks(std::span<const int> ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += out.empty() ? "" : ",";
    out += j == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string render_preamble(const RunHeader& h) {
  const WorldInfo& w = h.world;
  std::string out = fmt::format("# collbench {} run, backend {} ({})\n", h.tool_version, w.backend, w.backend_reason);
  out += fmt::format("# World: {} ranks ({} processes x {} device(s)) on {} node(s)\n", w.ranks, w.processes,
                     w.gpus_per_process, w.nodes.size());
  for (const auto& n : w.nodes) out += fmt::format("#   node {} ranks {}\n", n.name, format_ranks(n.ranks));
  out += fmt::format("# Versions: {}\n", versions_line(w));
  out += fmt::format("# Time: per-iteration samples, reduced across ranks by {}; the time column is their mean\n",
                     rank_reduce_name(h.rank_reduce));
  for (const auto& note : h.notes) out += fmt::format("# Note: {}\n", note);
  const SweepInfo& s = h.sweep;
  const std::string step =
      s.step_bytes > 0 ? fmt::format("{}(bytes)", s.step_bytes) : fmt::format("{:g}(factor)", s.factor);
  out += fmt::format(
      "# nThread 1 nGpus {} minBytes {} maxBytes {} step: {} warmup iters: {} iters: {} agg iters: 1 validation: {} "
      "graph: {}\n",
      w.gpus_per_process, s.min_bytes, s.max_bytes, step, s.warmup, s.iters, s.check_iters > 0 ? 1 : 0, s.graph_calls);
  out += "#\n# Using devices\n";
  for (const auto& r : w.rank_info)
    out += fmt::format("#  Rank {:>2} Group  0 Pid {:>6} on {:>10} device {:>2} [{}] {}\n", r.rank, r.pid, r.host,
                       r.device, r.bus_id, r.device_name);
  return out;
}

std::string render_table_header(std::string_view op) {
  std::string out = fmt::format("#\n# Collective test: {}\n#\n", op);
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}           out-of-place                        in-place\n",
                     "", "", "", "", "");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
                     "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                     "busbw", "#wrong");
  out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}  {:>7}  {:>6}  {:>6}  {:>6}\n",
                     "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  return out;
}

std::string render_row(const CaseResult* oop, const CaseResult* ip) {
  const CaseResult* any = oop != nullptr ? oop : ip;
  if (any == nullptr) return {};
  return fmt::format("{:>12}  {:>12}  {:>8}  {:>6}  {:>6}", any->bytes, any->count, any->dtype, any->redop, any->root) +
         placement_columns(oop) + placement_columns(ip) + "\n";
}

std::string render_table_footer(std::span<const CaseResult> cases) {
  std::int64_t wrong = 0;
  double busbw = 0;
  for (const auto& c : cases) {
    wrong += c.wrong.value_or(0);
    busbw += c.busbw_gbs;
  }
  const double avg = cases.empty() ? 0.0 : busbw / static_cast<double>(cases.size());
  return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:g} \n#\n", wrong,
                     wrong == 0 ? "OK" : "FAILED", avg);
}

}  // namespace collbench::report
