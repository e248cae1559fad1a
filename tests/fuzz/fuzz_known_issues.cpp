// The known-issues loader reads strictly: a file is refused with KnownIssueError (naming the entry
// and the field) or loaded with a source URL on every entry. Any other exception is a finding.
#include "reports/env/known_issues.h"
#include "tests/fuzz/fuzz_input.h"

using namespace collbench::report;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  KnownIssueList list;
  try {
    list = parse_known_issues(std::string(collbench::fuzz::text_of(data, size)), "known-issues.json");
  } catch (const KnownIssueError&) {
    return 0;
  }
  for (const auto& issue : list.issues) {
    FUZZ_CHECK(issue.source.rfind("https://", 0) == 0 && !issue.when.empty());
    for (const auto& [component, range] : issue.when) {
      FUZZ_CHECK(range.from || range.through || range.below);
      FUZZ_CHECK(in_range("not a version", range) == Match::Unknown);  // unknown never matches
    }
  }
  return 0;
}
