#include "reports/core/summary.h"

#include <fmt/format.h>

namespace collbench::report {

int count_issues(const std::vector<Finding>& findings) {
  int n = 0;
  for (const auto& f : findings) n += f.tag == Tag::Fail || f.tag == Tag::Warn;
  return n;
}

std::string render_findings(const std::vector<Finding>& findings, bool color) {
  std::string out;
  for (const auto& f : findings) out += render_finding(f, color) + "\n";
  return out;
}

std::string render_summary(const std::vector<Finding>& findings, bool color) {
  const std::string rule(60, '=');
  std::string out = fmt::format("\n{}\n  collbench summary\n{}\nIssues Found:  {}\n", rule, rule, count_issues(findings));
  struct Group {
    Priority p;
    const char* title;
  };
  for (const Group g : {Group{Priority::P0, "[P0 \u2014 Fix Immediately]"}, Group{Priority::P1, "[P1 \u2014 Fix Soon]"},
                        Group{Priority::P2, "[P2 \u2014 Advisory]"}}) {
    std::string details;
    for (const auto& f : findings) {
      if ((f.tag != Tag::Fail && f.tag != Tag::Warn) || f.priority != g.p) continue;
      details += fmt::format("  \u2192 {}: {}", f.code, f.message);
      if (!f.reference.empty()) details += " \u2192 " + f.reference;
      details += "\n";
    }
    if (!details.empty()) out += fmt::format("\n{}\n{}", g.title, details);
  }
  if (count_issues(findings) == 0)
    out += "\n" + render_finding({"HEALTHY", Tag::Pass, Priority::None, "no issues found: the run is healthy", ""}, color) +
           "\n";
  return out;
}

}  // namespace collbench::report
