#include "reports/html/svg.h"
#include "reports/html/svg_parts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/units.h"
#include "reports/core/json_fields.h"

namespace collbench::report::html {

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace svg_parts {

std::string number(double v) { return fmt::format("{:.3g}", v); }

double nice_step(double top, int count) {
  const double raw = top / count;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

std::string open_svg(const std::string& title, double width, double height) {
  return fmt::format(
      "<svg class=\"chart\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" "
      "aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\"><title>{}</title>"
      "<text class=\"chart-title\" x=\"{}\" y=\"20\">{}</text>",
      width, height, width, height, escape(title), escape(title), 10, escape(title));
}

std::string y_axis(double top, const std::string& label) {
  std::string s;
  const double step = nice_step(top, 5);
  for (double v = 0; v <= top * 1.0001; v += step) {
    const double y = kTop + kPlotH - v / top * kPlotH;
    s += fmt::format("<line class=\"grid\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", kLeft, kLeft + kPlotW, y, y);
    s += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", kLeft - 6, y + 4,
                     number(v));
  }
  s += fmt::format("<text class=\"axis-label\" transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
                   kTop + kPlotH / 2, escape(label));
  s += fmt::format("<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", kLeft, kLeft, kTop, kTop + kPlotH);
  s += fmt::format("<line class=\"axis\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", kLeft, kLeft + kPlotW,
                   kTop + kPlotH, kTop + kPlotH);
  return s;
}

std::string swatch_legend(double x, double top, const std::string& heading, std::initializer_list<const char*> labels) {
  std::string s = fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">{}</text>", x, top, escape(heading));
  int b = 0;
  for (const char* label : labels) {
    s += fmt::format("<rect class=\"h{}\" x=\"{}\" y=\"{}\" width=\"14\" height=\"14\"/><text class=\"legend\" x=\"{}\" "
                     "y=\"{}\">{}</text>",
                     b, x, top + 10 + 20 * b, x + 20, top + 21 + 20 * b, label);
    ++b;
  }
  return s;
}

}  // namespace svg_parts

using namespace svg_parts;

std::string render(const LineChart& chart) {
  double lo = INFINITY, hi = -INFINITY, top = 0;
  for (const auto& s : chart.series)
    for (const auto& [x, y] : s.points) {
      if (!(x > 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      lo = std::min(lo, std::log2(x));
      hi = std::max(hi, std::log2(x));
      top = std::max(top, y);
    }
  for (const auto& l : chart.lines) top = std::max(top, l.value);
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  if (hi - lo < 1) lo -= 0.5, hi += 0.5;
  top = top > 0 ? top * 1.1 : 1;
  auto px = [&](double bytes) { return kLeft + (std::log2(bytes) - lo) / (hi - lo) * kPlotW; };
  auto py = [&](double v) { return kTop + kPlotH - v / top * kPlotH; };

  std::string s = open_svg(chart.title, kWidth, kHeight) + y_axis(top, chart.y_label);
  const int first = static_cast<int>(std::ceil(lo)), last = static_cast<int>(std::floor(hi));
  const int every = std::max(1, (last - first + 1 + 9) / 10);
  for (int k = first; k <= last; k += every) {
    const double x = px(std::ldexp(1.0, k));
    s += fmt::format("<line class=\"grid\" x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\"/>", x, x, kTop, kTop + kPlotH);
    s += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x,
                     kTop + kPlotH + 16, escape(size_text(std::uint64_t{1} << std::clamp(k, 0, 62))));
  }
  s += fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">message size (log scale)</text>",
                   kLeft + kPlotW / 2, kHeight - 12);
  for (const auto& l : chart.lines) {
    const double y = py(l.value);
    s += fmt::format("<g class=\"threshold {}\"><title>{}</title><line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>"
                     "<text x=\"{}\" y=\"{:.1f}\">{}</text></g>",
                     escape(l.css_class), escape(l.label), kLeft, kLeft + kPlotW, y, y, kLeft + kPlotW + 6, y + 4,
                     escape(l.css_class + " " + number(l.value)));
  }
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const Series& ser = chart.series[i];
    std::string points, dots;
    for (const auto& [x, y] : ser.points) {
      if (!(x > 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      points += fmt::format("{:.1f},{:.1f} ", px(x), py(y));
      dots += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}: {} → {} {}</title></circle>", px(x),
                          py(y), escape(ser.name), escape(size_text(whole_bytes(x))), number(y),
                          escape(chart.y_label));
    }
    const double ly = kTop + 6 + 18.0 * static_cast<double>(i);
    s += fmt::format("<g class=\"series s{}\"><polyline points=\"{}\"/>{}<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" "
                     "y2=\"{:.1f}\"/><text class=\"legend\" x=\"{}\" y=\"{:.1f}\">{}</text></g>",
                     ser.style % 8, points, dots, kLeft + kPlotW + 8, kLeft + kPlotW + 30, ly, ly, kLeft + kPlotW + 34,
                     ly + 4, escape(ser.name));
  }
  return s + "</svg>";
}

std::string render(const BarChart& chart) {
  double top = 0;
  for (const auto& b : chart.bars) top = std::max(top, b.value);
  top = top > 0 ? top * 1.1 : 1;
  std::string s = open_svg(chart.title, kWidth, kHeight) + y_axis(top, chart.y_label);
  const double slot = kPlotW / std::max<std::size_t>(1, chart.bars.size());
  const bool labels = chart.bars.size() <= 32;
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const Bar& b = chart.bars[i];
    const double h = std::isfinite(b.value) ? b.value / top * kPlotH : 0;
    const double x = kLeft + slot * static_cast<double>(i);
    s += fmt::format("<rect class=\"bar{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.1f}\"><title>{}: {} "
                     "{}{}</title></rect>",
                     b.marked ? " marked" : "", x + slot * 0.1, kTop + kPlotH - h, std::max(slot * 0.8, 0.5), h,
                     escape(b.label), number(b.value), escape(chart.y_label), b.marked ? " (marked)" : "");
    if (labels)
      s += fmt::format("<text class=\"tick{}\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>",
                       b.marked ? " marked" : "", x + slot / 2, kTop + kPlotH + 16, b.marked ? "▲ " : "",
                       escape(b.label));
  }
  return s + "</svg>";
}

std::string render(const Heatmap& map) {
  const std::size_t n = map.names.size();
  const bool labels = n <= 64, numbers = n <= 12;
  // Over 128 nodes a drawn cell is a block of nodes showing its worst pair: a 1,024-node matrix
  // stays a few thousand marks, and a straggler's row still shows.
  const std::size_t block = std::max<std::size_t>(1, (n + 127) / 128), m = (n + block - 1) / block;
  // Room for the names: rows on the left, columns turned up above the cells.
  const double left = labels ? 110 : 30, top_margin = labels ? 100 : 40, legend = 190;
  const double cell = m == 0 ? 20 : std::clamp(560.0 / static_cast<double>(m), 1.0, 44.0);
  const double width = left + cell * static_cast<double>(m) + legend, height = top_margin + cell * static_cast<double>(m) + 40;
  // The median of the measured cells is the reference: each cell's class says how far it is from it.
  std::vector<double> all;
  for (const auto& row : map.values)
    for (const auto& v : row)
      if (v && std::isfinite(*v) && *v > 0) all.push_back(*v);
  std::sort(all.begin(), all.end());
  const double median = all.empty() ? 1 : all[all.size() / 2];
  auto goodness = [&](double v) { return map.higher_is_better ? v / median : median / v; };
  auto span = [&](std::size_t b) {
    const std::size_t lo = b * block, hi = std::min(n, lo + block) - 1;
    return lo == hi ? escape(map.names[lo]) : escape(map.names[lo]) + "–" + escape(map.names[hi]);
  };
  std::string s = open_svg(map.title, width, height);
  s += fmt::format("<g transform=\"translate({} {})\">", left, top_margin);
  for (std::size_t bi = 0; bi < m; ++bi)
    for (std::size_t bj = 0; bj < m; ++bj) {
      double worst = NAN;
      std::size_t count = 0;
      for (std::size_t i = bi * block; i < std::min(n, (bi + 1) * block) && i < map.values.size(); ++i)
        for (std::size_t j = bj * block; j < std::min(n, (bj + 1) * block) && j < map.values[i].size(); ++j) {
          const auto& v = map.values[i][j];
          if (!v || !std::isfinite(*v) || *v <= 0) continue;
          ++count;
          if (std::isnan(worst) || goodness(*v) < goodness(worst)) worst = *v;
        }
      if (count == 0) continue;
      const double good = goodness(worst);
      const int bin = good < 0.5 ? 0 : good < 0.8 ? 1 : good < 0.95 ? 2 : good <= 1.05 ? 3 : 4;
      s += fmt::format("<rect class=\"h{}\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"><title>{} ↔ {}: "
                       "{}{} {} ({:.0f}% of the median){}</title></rect>",
                       bin, cell * static_cast<double>(bj), cell * static_cast<double>(bi), cell, cell, span(bi),
                       span(bj), block > 1 ? "worst " : "", number(worst), escape(map.value_label),
                       100 * worst / median, block > 1 ? fmt::format(", {} pairs", count) : "");
      if (numbers)
        s += fmt::format("<text class=\"cell{}\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                         bin <= 1 ? " dark" : "", cell * (static_cast<double>(bj) + 0.5),
                         cell * (static_cast<double>(bi) + 0.5) + 4, number(worst));
    }
  for (const auto& [a, b] : map.marked_cells)
    for (auto [r, c] : {std::pair{a, b}, std::pair{b, a}})
      s += fmt::format("<rect class=\"link\" x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\"><title>slow link "
                       "{} ↔ {}</title></rect>",
                       cell * static_cast<double>(static_cast<std::size_t>(c) / block),
                       cell * static_cast<double>(static_cast<std::size_t>(r) / block), cell, cell,
                       escape(map.names.at(a)), escape(map.names.at(b)));
  if (!labels)
    for (int i : map.marked_names)
      s += fmt::format("<text class=\"tick marked\" x=\"-4\" y=\"{:.1f}\" text-anchor=\"end\">▲<title>{}</title></text>",
                       cell * (static_cast<double>(static_cast<std::size_t>(i) / block) + 0.5) + 4,
                       escape(map.names.at(i)));
  if (labels)
    for (std::size_t i = 0; i < n; ++i) {
      const bool marked = std::find(map.marked_names.begin(), map.marked_names.end(), static_cast<int>(i)) !=
                          map.marked_names.end();
      const std::string name = (marked ? "▲ " : "") + escape(map.names[i]);
      s += fmt::format("<text class=\"tick{}\" x=\"-6\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", marked ? " marked" : "",
                       cell * (static_cast<double>(i) + 0.5) + 4, name);
      s += fmt::format("<text class=\"tick{}\" transform=\"translate({:.1f} -6) rotate(-45)\">{}</text>",
                       marked ? " marked" : "", cell * (static_cast<double>(i) + 0.5), name);
    }
  s += "</g>";
  const double lx = left + cell * static_cast<double>(m) + 16;
  // Bins of how good a cell is against the median (the inverse ratio where lower is better).
  s += swatch_legend(lx, top_margin, fmt::format("median {} {}", number(median), map.value_label),
                     {"under half as good", "50-80% as good", "80-95% as good", "within 5%", "over 5% better"});
  return s + "</svg>";
}

}  // namespace collbench::report::html
