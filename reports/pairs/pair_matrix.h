// What hunt's and fabric's node x node matrices share: labels n0..nN-1 (marked '*' when the node
// is slow), a wrapped legend of their names, and right-aligned rows with '-' where nothing was
// measured.
#pragma once

#include <string>
#include <vector>

#include "reports/pairs/attribution.h"

namespace collbench::report {

struct MatrixStyle {
  std::string legend;        // first legend line's prefix, e.g. "nodes:"
  std::string continuation;  // what later legend lines start with
  double one_decimal_from = 10;  // values this large get one decimal; from 1, two; below, three
  std::size_t min_width = 4;     // narrowest cell
  bool wide_labels = false;      // the label column as wide as a cell (else as its longest label)
};

// `values`: the matrix to print (already in its unit); `names` by node. Legend, then header and rows.
struct MatrixText {
  std::string legend;
  std::string table;
};
MatrixText render_pair_matrix(const Attribution& a, const std::vector<std::vector<double>>& values,
                              const std::vector<std::string>& names, const MatrixStyle& style);

}  // namespace collbench::report
