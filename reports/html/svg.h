// Charts as inline SVG text: a line chart on a log2 size axis, a bar chart and a heatmap. Pure
// functions of their values; colours come from the page's CSS classes, so dark mode and print
// restyle them, and every mark carries its number in a <title> (shown on hover).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench::report::html {

// Text for XML and HTML: &, <, >, " and ' escaped.
std::string escape(const std::string& text);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (bytes, value), bytes > 0
  int style = 0;                                  // colour and dash: 0..7
};

struct HorizontalLine {  // a threshold: a dashed line, its label and the size it is judged at
  double value = 0;
  std::string label;
  std::string css_class;  // "fail" or "warn"
};

struct LineChart {
  std::string title, y_label;
  std::vector<Series> series;
  std::vector<HorizontalLine> lines;
};

struct Bar {
  std::string label;
  double value = 0;
  bool marked = false;  // drawn in the alarm colour, with a marker in its label
};

struct BarChart {
  std::string title, y_label;
  std::vector<Bar> bars;
};

struct Heatmap {
  std::string title, value_label;
  std::vector<std::string> names;                         // rows and columns
  std::vector<std::vector<std::optional<double>>> values;  // [row][column]; nullopt: none
  bool higher_is_better = true;                           // bandwidth: yes; latency: no
  std::vector<int> marked_names;                          // stragglers: their row and column labels
  std::vector<std::pair<int, int>> marked_cells;          // slow links (both orders are marked)
};

std::string render(const LineChart& chart);
std::string render(const BarChart& chart);
std::string render(const Heatmap& map);

}  // namespace collbench::report::html
