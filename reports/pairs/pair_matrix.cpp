#include "reports/pairs/pair_matrix.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace collbench::report {

MatrixText render_pair_matrix(const Attribution& a, const std::vector<std::vector<double>>& values,
                              const std::vector<std::string>& names, const MatrixStyle& style) {
  const int n = static_cast<int>(values.size());
  double largest = 0;
  for (const auto& row : values)
    for (double x : row)
      if (!std::isnan(x)) largest = std::max(largest, x);
  // Fabric-class numbers read well with one decimal; slow links need more, or they all read 0.0.
  const int decimals = largest >= style.one_decimal_from ? 1 : largest >= 1 ? 2 : 3;
  std::vector<std::string> labels(n);
  std::size_t width = style.min_width, label_width = 2;
  for (int v = 0; v < n; ++v) {
    const bool marked = static_cast<std::size_t>(v) < a.nodes.size() && a.nodes[v].kind == NodeVerdict::Kind::Straggler;
    labels[v] = fmt::format("n{}{}", v, marked ? "*" : "");
    label_width = std::max(label_width, labels[v].size());
    for (double x : values[v])
      if (!std::isnan(x)) width = std::max(width, fmt::format("{:.{}f}", x, decimals).size());
  }
  width = std::max(width, label_width) + 1;
  if (style.wide_labels) label_width = width;

  MatrixText out;
  // Wrapped so 16 nodes with long host names stay readable.
  std::string line = style.legend;
  for (int v = 0; v < n; ++v) {
    const std::string item =
        fmt::format(" n{}={}", v, static_cast<std::size_t>(v) < names.size() && !names[v].empty() ? names[v]
                                                                                                   : fmt::format("n{}", v));
    if (line.size() + item.size() > 100 && line.size() > style.legend.size()) {
      out.legend += line + "\n";
      line = style.continuation;
    }
    line += item;
  }
  out.legend += line + "\n";
  out.table = fmt::format("{:<{}}", "", label_width);
  for (int v = 0; v < n; ++v) out.table += fmt::format("{:>{}}", labels[v], width);
  out.table += "\n";
  for (int v = 0; v < n; ++v) {
    out.table += fmt::format("{:<{}}", labels[v], label_width);
    for (int u = 0; u < n; ++u) {
      const double x = values[v][u];
      out.table += u == v || std::isnan(x) ? fmt::format("{:>{}}", "-", width)
                                           : fmt::format("{:>{}.{}f}", x, width, decimals);
    }
    out.table += "\n";
  }
  return out;
}

}  // namespace collbench::report
