#include "reports/fabric_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/text_table.h"

namespace collbench::report {
namespace {

std::string pair_label(const FabricRun& run, const FabricPair& p) {
  return fmt::format("{}<->{}", run.units[p.a].name, run.units[p.b].name);
}

std::size_t pair_width(const FabricRun& run) {
  std::size_t w = 4;
  for (const auto& p : run.pairs) w = std::max(w, pair_label(run, p).size());
  return w;
}

}  // namespace

std::string render_fabric_header(const FabricRun& run) {
  const FabricProvider& p = run.provider;
  std::string out = fmt::format("# collbench fabric {}: libfabric RDM endpoints, point to point between scheduled pairs\n",
                                run.tool_version);
  out += fmt::format("# Provider: {}  fabric: {}  domain: {}  libfabric: {}  messages: {}{}\n", p.name, p.fabric,
                     p.domain, p.libfabric, p.messaging, p.mr_local ? "  memory registration: local" : "");
  out += fmt::format("# Provider choice: {}\n", p.reason);
  if (!p.polling.empty()) out += fmt::format("# Completions: {} polling ({})\n", p.polling, p.polling_reason);
  out += fmt::format("# Ranks: {} on {} node{}:", run.ranks, run.nodes.size(), run.nodes.size() == 1 ? "" : "s");
  for (const auto& n : run.nodes) out += fmt::format(" {} ({})", n.name, format_ranks(n.ranks));
  out += "\n";
  out += run.per_rank ? "# Units: ranks (one node: each rank is its own endpoint, paired with the others)\n"
                      : "# Units: nodes; local rank i of one node measures with local rank i of its partner\n";
  std::size_t pairs = 0;
  for (const auto& r : run.rounds) pairs += r.size();
  out += fmt::format("# Pattern {}: {} rounds, {} pairs, all pairs of a round at once\n", run.pattern,
                     run.rounds.size(), pairs);
  for (std::size_t r = 0; r < run.rounds.size(); ++r) {
    std::string line;
    for (const auto& [a, b] : run.rounds[r])
      line += fmt::format("{}{}<->{}", line.empty() ? "" : "  ", run.units[a].name, run.units[b].name);
    out += fmt::format("#   round {}: {}\n", r, line);
  }
  const auto& o = run.options;
  out += fmt::format("# Sizes {} .. {} (x{:g}); latency up to {}, bandwidth from {}; ping-pong {} + {} warm-up; "
                     "stream window {}, {} + {} warm-up iterations; timeout {:g} s\n",
                     size_text(o.min_bytes), size_text(o.max_bytes), o.factor, size_text(o.latency_max),
                     size_text(o.bandwidth_min), o.iters, o.warmup, o.window, o.bw_iters, o.bw_warmup, o.timeout_s);
  return out;
}

std::string render_latency_table(const FabricRun& run) {
  const std::size_t w = pair_width(run);
  std::string out = "#\n# Latency: one-way, half the ping-pong round trip (us)\n";
  out += fmt::format("# {:<{}} {:>4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>8}\n", "pair", w, "lane", "size", "median",
                     "p99", "min", "mean", "samples");
  std::size_t rows = 0;
  for (const auto& p : run.pairs)
    for (const auto& l : p.lanes)
      for (const auto& pt : l.latency) {
        out += fmt::format("  {:<{}} {:>4} {:>10} {:>10.2f} {:>10.2f} {:>10.2f} {:>10.2f} {:>8}\n", pair_label(run, p),
                           w, l.lane, pt.bytes, pt.median_us, pt.p99_us, pt.min_us, pt.mean_us, pt.samples);
        ++rows;
      }
  if (rows == 0) out += "# (no size at or below the latency limit)\n";
  return out;
}

std::string render_bandwidth_table(const FabricRun& run) {
  const std::size_t w = pair_width(run);
  std::string out = "#\n# Bandwidth: medians over iterations (GB/s); bidir is both directions at once, summed\n";
  out += fmt::format("# {:<{}} {:>4} {:>10} {:>6} {:>10} {:>10} {:>10} {:>8}\n", "pair", w, "lane", "size", "window",
                     "a->b", "b->a", "bidir", "samples");
  std::size_t rows = 0;
  for (const auto& p : run.pairs)
    for (const auto& l : p.lanes)
      for (const auto& pt : l.bandwidth) {
        out += fmt::format("  {:<{}} {:>4} {:>10} {:>6} {:>10.3f} {:>10.3f} {:>10.3f} {:>8}\n", pair_label(run, p), w,
                           l.lane, pt.bytes, pt.window, pt.a_to_b_gbs, pt.b_to_a_gbs, pt.bidir_gbs, pt.samples);
        ++rows;
      }
  if (rows == 0) out += "# (no size at or above the bandwidth limit)\n";
  return out;
}

std::string render_fabric_matrix(const Attribution& a, const FabricRun& run, bool latency) {
  const int n = static_cast<int>(a.matrix.size());
  auto value = [&](double x) { return latency ? (x > 0 ? 1000.0 / x : NAN) : x; };
  double largest = 0;
  for (const auto& row : a.matrix)
    for (double x : row)
      if (!std::isnan(x)) largest = std::max(largest, value(x));
  const int decimals = largest >= 100 ? 1 : largest >= 1 ? 2 : 3;
  std::vector<std::string> labels(n);
  std::size_t width = 5;
  bool marked_any = false;
  for (int v = 0; v < n; ++v) {
    const bool marked = static_cast<std::size_t>(v) < a.nodes.size() && a.nodes[v].kind == NodeVerdict::Kind::Straggler;
    marked_any |= marked;
    labels[v] = fmt::format("n{}{}", v, marked ? "*" : "");
    width = std::max(width, labels[v].size());
    for (double x : a.matrix[v])
      if (!std::isnan(x)) width = std::max(width, fmt::format("{:.{}f}", value(x), decimals).size());
  }
  ++width;
  std::string out = latency ? fmt::format("#\n# Latency matrix: one-way us at {} per pair (median of the lower half "
                                          "of the means of 20 batches of iterations)",
                                          size_text(run.latency_bytes))
                            : fmt::format("#\n# Bandwidth matrix: median unidirectional GB/s at {} per pair",
                                          size_text(run.bandwidth_bytes));
  out += marked_any ? "; * = slow\n" : "\n";
  std::string legend = "# units:";
  for (int v = 0; v < n; ++v) {
    const std::string item = fmt::format(" n{}={}", v, run.units[v].name);
    if (legend.size() + item.size() > 100 && legend.size() > 8) {
      out += legend + "\n";
      legend = "#       ";
    }
    legend += item;
  }
  out += legend + "\n";
  out += fmt::format("{:<{}}", "", width);
  for (int v = 0; v < n; ++v) out += fmt::format("{:>{}}", labels[v], width);
  out += "\n";
  for (int v = 0; v < n; ++v) {
    out += fmt::format("{:<{}}", labels[v], width);
    for (int u = 0; u < n; ++u) {
      const double x = a.matrix[v][u];
      out += u == v || std::isnan(x) ? fmt::format("{:>{}}", "-", width)
                                     : fmt::format("{:>{}.{}f}", value(x), width, decimals);
    }
    out += "\n";
  }
  return out;
}

}  // namespace collbench::report
