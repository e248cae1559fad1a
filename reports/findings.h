// Findings in the HyperPod finding/reference scheme: a tag, a stable code, a priority, one line
// of evidence and a pointer into the hyperpod-nccl references.
#pragma once

#include <string>
#include <vector>

namespace collbench::report {

enum class Tag { Pass, Fail, Warn, Info };
enum class Priority { None, P0, P1, P2 };

struct Finding {
  std::string code;
  Tag tag = Tag::Info;
  Priority priority = Priority::None;
  std::string message;
  std::string reference;  // "references/<file>.md § <section>", or empty
};

std::string tag_name(Tag t);            // "PASS"
std::string priority_name(Priority p);  // "P0", or "" for None

// "[FAIL] WRONG_RESULTS (P0): ... → references/debugging-guide.md § 7 Node Hardware Failures"
std::string render_finding(const Finding& f, bool color);

// Exit code for a finished run: 3 when a FAIL (with fail_on_warn, a WARN too) is among the
// findings, else 0.
int exit_code_for(const std::vector<Finding>& findings, bool fail_on_warn = false);

}  // namespace collbench::report
