// A collbench.inspector/1 document (analyze on NCCL Inspector logs): the job in numbers, the rank x
// time maps of how late each rank arrived (the late rank marked), and each communicator's busbw over
// the job.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"
#include "reports/core/json_fields.h"
#include "reports/html/sections.h"
#include "reports/html/svg.h"

namespace collbench::report::html {

using nlohmann::json;

namespace {

// A page stays readable and light on a job of hundreds of communicators: the largest ones are drawn.
constexpr std::size_t kDrawnHeatmaps = 4, kDrawnSeries = 16;

double minutes_of(const json& seconds) { return seconds.is_number() ? seconds.get<double>() / 60 : 0; }

std::string heatmap(const json& h) {
  LatenessMap map;
  const json hosts = array_at(h, "rank_hosts"), rows = array_at(h, "late_percent"), count = array_at(h, "bin_collectives");
  const json first = array_at(h, "bin_first_t_s"), last = array_at(h, "bin_last_t_s");
  const std::uint64_t sn0 = bytes_at(h, "first_coll_sn"), width = std::max<std::uint64_t>(1, bytes_at(h, "coll_sn_per_bin"));
  for (std::size_t r = 0; r < rows.size(); ++r)
    map.rows.push_back(fmt::format("rank {} · {}", r, r < hosts.size() && hosts[r].is_string() ? hosts[r].get<std::string>() : "?"));
  for (std::size_t b = 0; b < count.size(); ++b)
    map.columns.push_back(fmt::format("coll_sn {}–{} ({} collectives, {:.1f}–{:.1f} min)", sn0 + b * width,
                                      sn0 + (b + 1) * width - 1, count[b].is_number() ? count[b].get<double>() : 0,
                                      b < first.size() ? minutes_of(first[b]) : 0, b < last.size() ? minutes_of(last[b]) : 0));
  for (const auto& row : rows) {
    std::vector<std::optional<double>> cells;
    for (std::size_t b = 0; b < row.size(); ++b)
      cells.push_back(row[b].is_number() && b < count.size() && count[b].is_number() && count[b].get<double>() > 0
                          ? std::optional<double>(row[b].get<double>())
                          : std::nullopt);
    map.percent.push_back(std::move(cells));
  }
  std::string late_note = "no late rank";
  if (h.contains("late_rank") && h["late_rank"].is_number_integer()) {
    const int r = h["late_rank"].get<int>();
    if (r >= 0 && static_cast<std::size_t>(r) < map.rows.size()) {
      map.marked_rows.push_back(r);
      late_note = "late: " + map.rows[static_cast<std::size_t>(r)];
    }
  }
  map.title = fmt::format("{}: how late each rank arrived ({} ranks on {} nodes; {})", string_at(h, "communicator"),
                          rows.size(), number_at(h, "nnodes"), late_note);
  const double t0 = first.empty() ? 0 : minutes_of(first[0]), t1 = last.empty() ? 0 : minutes_of(last[last.size() - 1]);
  map.x_label = fmt::format("coll_sn {}–{}, {} a column ({:.1f}–{:.1f} min)", sn0, sn0 + count.size() * width - 1,
                            width, t0, t1);
  return "<figure>" + render(map) +
         "<figcaption>Each cell: how long the others waited for this rank in those collectives, as a share of their "
         "time (their median exec time less its own). The rank the others wait for is the dark row.</figcaption></figure>";
}

// One chart per (communicator, collective, size): its busbw over the job's minutes, or over the
// collectives in order where the dump timestamps do not spread (the Inspector wrote at the end).
std::string series_chart(const json& comm, const json& series) {
  const json t = array_at(series, "t_s"), bw = array_at(series, "busbw_gbs");
  double span = 0;
  for (const auto& v : t)
    if (v.is_number()) span = std::max(span, v.get<double>());
  const bool timed = span >= 1;
  Series line{fmt::format("{} {}", string_at(series, "collective"), size_text(bytes_at(series, "bytes"))), {}, 0};
  for (std::size_t i = 0; i < bw.size(); ++i)
    if (bw[i].is_number())
      line.points.push_back({timed && i < t.size() && t[i].is_number() ? t[i].get<double>() / 60 : static_cast<double>(i),
                             bw[i].get<double>()});
  TimeChart chart{fmt::format("{}: {} {} busbw ({} ranks on {} nodes)", string_at(comm, "id"),
                              string_at(series, "collective"), size_text(bytes_at(series, "bytes")),
                              number_at(comm, "n_ranks"), number_at(comm, "nnodes")),
                  timed ? "minutes since the job's first record"
                        : fmt::format("points in coll_sn order ({} collectives a point)", number_at(series, "samples_per_point")),
                  "busbw GB/s", {std::move(line)}};
  return "<figure>" + render(chart) + "</figure>";
}

}  // namespace

std::string inspector_section(const json& doc) {
  std::string s;
  const json comms = array_at(doc, "communicators"), procs = array_at(doc, "processes");
  std::vector<std::vector<std::string>> job{
      {"records", fmt::format("{}", number_at(doc, "records"))},
      {"processes", fmt::format("{}", procs.size())},
      {"communicators", fmt::format("{}", comms.size())},
      {"minutes", fmt::format("{:.1f}", (number_at(doc, "last_dump_timestamp_us") -
                                         number_at(doc, "first_dump_timestamp_us")) / 60e6)}};
  s += "<table class=\"world\"><tbody>";
  for (const auto& r : job) s += "<tr><th>" + escape(r[0]) + "</th><td>" + escape(r[1]) + "</td></tr>";
  s += "</tbody></table>";

  // A document written before analyze kept the drawings has neither maps nor series: said once.
  if (!doc.contains("heatmaps"))
    s += "<p class=\"note\">This document carries no drawings (an older collbench wrote it): rerun "
         "<code>collbench analyze DIR --json</code> on the logs to draw them.</p>";
  const json maps = array_at(doc, "heatmaps");
  s += "<h3>Late arrival by rank over the job</h3>";
  if (maps.empty() && doc.contains("heatmaps"))
    s += "<p class=\"note\">No communicator of 3 ranks or more has a joined collective.</p>";
  for (std::size_t i = 0; i < maps.size() && i < kDrawnHeatmaps; ++i) s += heatmap(maps[i]);

  // The largest communicators first: the world's, then the data-parallel ones.
  std::vector<std::size_t> order(comms.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return number_at(comms[a], "n_ranks") > number_at(comms[b], "n_ranks"); });
  s += "<h3>Busbw over the job</h3>";
  std::size_t drawn = 0, total = 0;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i : order) {
    const json& c = comms[i];
    for (const auto& ser : array_at(c, "series")) {
      ++total;
      if (drawn < kDrawnSeries) s += series_chart(c, ser), ++drawn;
    }
    rows.push_back({escape(string_at(c, "id")), fmt::format("{}", number_at(c, "n_ranks")),
                    fmt::format("{}", number_at(c, "nnodes")), fmt::format("{}", number_at(c, "joined")),
                    fmt::format("{}", number_at(c, "partial"))});
  }
  if (total > drawn)
    s += fmt::format("<p class=\"note\">{} more series of smaller communicators are in the document, not drawn.</p>",
                     total - drawn);
  return s + table({"communicator", "ranks", "nodes", "joined", "partial"}, rows, "communicators");
}

}  // namespace collbench::report::html
