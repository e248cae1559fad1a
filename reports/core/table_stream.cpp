#include "reports/core/table_stream.h"

#include "reports/core/text_table.h"

namespace collbench::report {

std::string TableStream::add(const CaseResult& c) {
  std::string out;
  if (!table_.empty() && table_.back().op != c.op) out += finish();
  if (table_.empty()) out += render_table_header(c.op);
  table_.push_back(c);
  if (table_.size() - row_start_ == per_row_) {
    const CaseResult* oop = nullptr;
    const CaseResult* ip = nullptr;
    for (std::size_t i = row_start_; i < table_.size(); ++i) (table_[i].placement == Placement::InPlace ? ip : oop) = &table_[i];
    out += render_row(oop, ip);
    row_start_ = table_.size();
  }
  return out;
}

std::string TableStream::finish() {
  if (table_.empty()) return {};
  std::string out = render_table_footer(table_);
  table_.clear();
  row_start_ = 0;
  return out;
}

}  // namespace collbench::report
