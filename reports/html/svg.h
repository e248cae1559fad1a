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

// Values over a linear x axis from 0 (time, or collectives in order); Series points are (x, value).
struct TimeChart {
  std::string title, x_label, y_label;
  std::vector<Series> series;
};

// Rows (ranks) over columns (stretches of a job): how late each row arrived, in percent of the
// others' time, coloured on a fixed scale (2, 5 and 10%), so a healthy job stays pale however
// small its noise and a straggler's row is dark wherever it is. Over 128 rows a drawn row is a
// block of rows showing its latest.
struct LatenessMap {
  std::string title, x_label;
  std::vector<std::string> rows;                 // row labels (rank and host)
  std::vector<std::string> columns;              // what each column spans, for its cells' titles
  std::vector<std::vector<std::optional<double>>> percent;  // [row][column]; nullopt: none
  std::vector<int> marked_rows;                  // the late rank
};

std::string render(const LineChart& chart);
std::string render(const TimeChart& chart);
std::string render(const LatenessMap& map);
std::string render(const BarChart& chart);
std::string render(const Heatmap& map);

}  // namespace collbench::report::html
