// The Inspector's drawings: busbw over a job and the rank x time map of how late each rank came.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "reports/html/svg.h"
#include "reports/html/svg_parts.h"

namespace collbench::report::html {

using namespace svg_parts;

std::string render(const TimeChart& chart) {
  double right = 0, top = 0;
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      right = std::max(right, x);
      top = std::max(top, y);
    }
  right = right > 0 ? right : 1;
  top = top > 0 ? top * 1.1 : 1;
  auto px = [&](double x) { return kLeft + x / right * kPlotW; };
  auto py = [&](double v) { return kTop + kPlotH - v / top * kPlotH; };
  std::string s = open_svg(chart.title, kWidth, kHeight) + y_axis(top, chart.y_label);
  const double step = nice_step(right, 6);
  for (double x = 0; x <= right * 1.0001; x += step) {
    s += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\"/>", px(x), px(x), kTop,
                     kTop + kPlotH);
    s += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px(x),
                     kTop + kPlotH + 16, number(x));
  }
  s += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", kLeft + kPlotW / 2,
                   kHeight - 12, escape(chart.x_label));
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& ser = chart.series[i];
    std::string points;
    for (const auto& [x, y] : ser.points)
      if (std::isfinite(x) && std::isfinite(y)) points += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
    const double ly = kTop + 6 + 18.0 * static_cast<double>(i);
    s += fmt::format("<g class=\"series s{}\"><title>{}</title><polyline points=\"{}\"/><line x1=\"{}\" x2=\"{}\" "
                     "y1=\"{:.1f}\" y2=\"{:.1f}\"/><text class=\"legend\" x=\"{}\" y=\"{:.1f}\">{}</text></g>",
                     ser.style % 8, escape(ser.name), points, kLeft + kPlotW + 8, kLeft + kPlotW + 30, ly, ly,
                     kLeft + kPlotW + 34, ly + 4, escape(ser.name));
  }
  return s + "</svg>";
}

namespace {

// The fixed scale: h3 on time (or it waited), h2 2-5% late, h1 5-10%, h0 10% and more.
int late_bin(double percent) { return percent < 2 ? 3 : percent < 5 ? 2 : percent < 10 ? 1 : 0; }

}  // namespace

std::string render(const LatenessMap& map) {
  const std::size_t n = map.rows.size(), cols = map.columns.size();
  const std::size_t block = std::max<std::size_t>(1, (n + 127) / 128), m = (n + block - 1) / block;
  const bool labels = m <= 64;
  const double left = labels || !map.marked_rows.empty() ? 170 : 40, top_margin = 40, legend = 200;
  const double cw = cols == 0 ? 8 : std::clamp(520.0 / static_cast<double>(cols), 4.0, 40.0);
  const double rh = m == 0 ? 16 : std::clamp(480.0 / static_cast<double>(m), 3.0, 18.0);
  const double width = left + cw * static_cast<double>(cols) + legend;
  const double height = top_margin + rh * static_cast<double>(m) + 44;
  auto is_marked = [&](std::size_t row) {
    return std::find(map.marked_rows.begin(), map.marked_rows.end(), static_cast<int>(row)) != map.marked_rows.end();
  };
  std::string s = open_svg(map.title, width, height);
  s += fmt::format("<g transform=\"translate({} {})\">", left, top_margin);
  for (std::size_t bi = 0; bi < m; ++bi) {
    const std::size_t lo = bi * block, hi = std::min(n, lo + block);
    const std::string who = block == 1 ? escape(map.rows[lo]) : escape(map.rows[lo]) + " – " + escape(map.rows[hi - 1]);
    for (std::size_t c = 0; c < cols; ++c) {
      std::optional<double> latest;
      for (std::size_t r = lo; r < hi && r < map.percent.size(); ++r)
        if (c < map.percent[r].size() && map.percent[r][c] && std::isfinite(*map.percent[r][c]) &&
            (!latest || *map.percent[r][c] > *latest))
          latest = map.percent[r][c];
      if (!latest) continue;
      s += fmt::format("<rect class=\"h{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"><title>{}, {}: "
                       "{}{:.1f}% late</title></rect>",
                       late_bin(*latest), cw * static_cast<double>(c), rh * static_cast<double>(bi), cw, rh, who,
                       escape(map.columns[c]), block > 1 ? "latest " : "", *latest);
    }
    // A marked row is named even where the others are not (a block of rows names its marked one).
    std::optional<std::size_t> marked;
    for (std::size_t r = lo; r < hi; ++r)
      if (is_marked(r)) marked = r;
    if (labels || marked)
      s += fmt::format("<text class=\"tick{}\" x=\"-6\" y=\"{:.1f}\" text-anchor=\"end\">{}{}</text>",
                       marked ? " marked" : "", rh * (static_cast<double>(bi) + 0.5) + 4, marked ? "▲ " : "",
                       marked ? escape(map.rows[*marked]) : who);
  }
  s += fmt::format("<text class=\"axis-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text></g>",
                   cw * static_cast<double>(cols) / 2, rh * static_cast<double>(m) + 22, escape(map.x_label));
  const double lx = left + cw * static_cast<double>(cols) + 16;
  s += swatch_legend(lx, top_margin, "others waited for it",
                     {"10% late or more", "5-10% late", "2-5% late", "on time (under 2%)"});
  return s + "</svg>";
}

}  // namespace collbench::report::html
