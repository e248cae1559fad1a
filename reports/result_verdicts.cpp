#include "reports/result_verdicts.h"
#include "reports/references.h"

#include <fmt/format.h>

namespace collbench::report {

std::vector<Finding> result_findings(const std::vector<CaseResult>& cases) {
  std::int64_t wrong = 0;
  int bad = 0, unchecked = 0;
  const CaseResult* first = nullptr;
  for (const auto& c : cases) {
    if (!c.wrong) ++unchecked;
    else if (*c.wrong > 0) {
      wrong += *c.wrong;
      if (bad++ == 0) first = &c;
    }
  }
  std::vector<Finding> out;
  if (bad > 0)
    out.push_back({"WRONG_RESULTS", Tag::Fail, Priority::P0,
                   fmt::format("{} wrong elements in {} of {} cases; first: {} {} {} {} B (expected exact results)",
                               wrong, bad, cases.size(), first->op, first->dtype, first->placement, first->bytes),
                   ref::kHardware});
  else if (cases.size() > static_cast<std::size_t>(unchecked))
    out.push_back({"RESULTS_EXACT", Tag::Pass, Priority::None,
                   fmt::format("every checked element of {} cases was exact", cases.size() - unchecked), ""});
  if (unchecked > 0)
    out.push_back({"RESULTS_UNCHECKED", Tag::Info, Priority::None,
                   fmt::format("{} cases were not checked (-c 0, validation off, or an in-place op that cannot be checked)",
                               unchecked),
                   ""});
  return out;
}

}  // namespace collbench::report
