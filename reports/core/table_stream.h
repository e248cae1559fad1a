// Turns case results, in run order, into the text table as soon as each row is complete: a
// header when a collective starts, a row when all its placements are in, footers when it ends.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/core/result.h"

namespace collbench::report {

class TableStream {
 public:
  explicit TableStream(std::size_t placements_per_row) : per_row_(placements_per_row) {}

  // Text to print now (possibly empty).
  std::string add(const CaseResult& c);
  // Closes the last table.
  std::string finish();

 private:
  std::size_t per_row_;
  std::vector<CaseResult> table_;  // the current collective's cases
  std::size_t row_start_ = 0;  // index in table_ of the first case of the open row
};

}  // namespace collbench::report
