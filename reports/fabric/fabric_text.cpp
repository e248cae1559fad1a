#include "reports/fabric/fabric_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "reports/pairs/pair_matrix.h"
#include "reports/core/text_table.h"

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
  // Latency is judged as a rate (1/us) and printed as microseconds.
  std::vector<std::vector<double>> values = a.matrix;
  if (latency)
    for (auto& row : values)
      for (double& x : row) x = x > 0 ? 1000.0 / x : NAN;
  std::vector<std::string> names;
  for (const auto& u : run.units) names.push_back(u.name);
  const bool marked_any = std::any_of(a.nodes.begin(), a.nodes.end(),
                                      [](const NodeVerdict& nv) { return nv.kind == NodeVerdict::Kind::Straggler; });
  std::string out = latency ? fmt::format("#\n# Latency matrix: one-way us at {} per pair (median of the lower half "
                                          "of the means of 20 batches of iterations)",
                                          size_text(run.latency_bytes))
                            : fmt::format("#\n# Bandwidth matrix: median unidirectional GB/s at {} per pair",
                                          size_text(run.bandwidth_bytes));
  out += marked_any ? "; * = slow\n" : "\n";
  const MatrixText m = render_pair_matrix(a, values, names, {"# units:", "#       ", 100, 5, true});
  return out + m.legend + m.table;
}

}  // namespace collbench::report
