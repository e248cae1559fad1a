// Version combinations known to be slow or broken (thresholds/known-issues.json, format in
// thresholds/README.md), loaded strictly like the thresholds, and the matcher that says which of
// them a set of versions falls into. Pure: parse, validate, compare; no I/O beyond reading the file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/json_input.h"

namespace collbench::report {

// The file's name next to the thresholds; profile_names() leaves it out.
inline constexpr const char* kKnownIssuesFile = "known-issues.json";

// The components an entry may name, as RankEnv.versions and the NCCL log facts carry them.
//   nccl, ofi_plugin (aws-ofi-nccl), efa_installer, libfabric, cuda_driver, cuda_runtime
const std::vector<std::string>& known_issue_components();

// A version as numbers: "2.19.4+cuda12.2" -> {2, 19, 4}, "v1.7.3-aws" -> {1, 7, 3}, "1.18" -> {1, 18}.
// Rule: an optional leading 'v', then dot-separated decimal numbers; reading stops at the first
// character that continues neither ("+cuda12.2", "-aws", "amzn1.0" are ignored). nullopt when the
// text does not start that way ("Open MPI v4.1.4", "", "unknown").
std::optional<std::vector<std::uint64_t>> parse_version(const std::string& text);

// One component's range: from <= v, v <= through, v < below (each optional, at least one set).
struct VersionRange {
  std::optional<std::vector<std::uint64_t>> from, through, below;
  std::string text;  // ">= 2.19", "1.12.0", ">= 1.11 and < 1.13": for messages
};

enum class Match { No, Yes, Unknown };

// Whether `version` (any text) is in `range`. Numbers compare one dotted part at a time; parts a
// bound lacks count as 0 (a bound "1.29" is 1.29.0). A version found with fewer parts than a bound
// has stands for all its completions ("1.18" is 1.18.x): Yes or No only when every completion
// agrees, else Unknown. Unparseable text is Unknown: an unknown version never matches.
Match in_range(const std::string& version, const VersionRange& range);

struct KnownIssue {
  std::string id;                                   // stable, e.g. "nccl-2.19-efa-installer-before-1.29"
  std::map<std::string, VersionRange> when;         // every component must be in its range
  std::map<std::string, std::string> unless_env;    // a variable set to this value works around it
  Tag tag = Tag::Warn;
  Priority priority = Priority::P1;
  std::string message;  // what goes wrong, in one line
  std::string fix;      // which version to move to
  std::string source;   // public URL (https://...)
};

struct KnownIssueList {
  std::string file;
  std::vector<KnownIssue> issues;
};

// Bad known-issues input: names the file, the entry (issues[i] and its id) and the field. The one
// input error every reader throws (reports/core/json_input.h).
using KnownIssueError = InputError;

// `text` as the contents of `file` (named in errors). Throws KnownIssueError.
KnownIssueList parse_known_issues(const std::string& text, const std::string& file);
KnownIssueList load_known_issues_file(const std::string& path);

// One entry against one process's versions (component -> version text) and, when known, its
// environment. Yes only when every component is known and in range and no unless_env applies; No
// when any component is known and out of range; Unknown otherwise.
Match match_issue(const KnownIssue& issue, const std::map<std::string, std::string>& versions,
                  const std::map<std::string, std::string>* env);

// The entries that match (Yes) these versions, in file order.
std::vector<const KnownIssue*> matching_issues(const KnownIssueList& list,
                                               const std::map<std::string, std::string>& versions,
                                               const std::map<std::string, std::string>* env = nullptr);

}  // namespace collbench::report
