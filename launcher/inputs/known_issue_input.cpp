#include "launcher/inputs/known_issue_input.h"

#include <fmt/format.h>

#include <filesystem>

#include "bench/errors.h"
#include "launcher/inputs/installed.h"
#include "reports/env/known_issue_verdicts.h"

namespace collbench {
namespace fs = std::filesystem;

KnownIssuesChoice known_issues_for(const VerdictOptions& v) {
  if (v.known_issues == "none") return {std::nullopt, "--known-issues none"};
  try {
    if (!v.known_issues.empty()) {
      if (!fs::is_regular_file(v.known_issues))
        throw UsageError(fmt::format("--known-issues '{}': no such file; give a known-issues JSON file (format: "
                                     "thresholds/README.md) or none",
                                     v.known_issues));
      return {report::load_known_issues_file(v.known_issues), ""};
    }
    const fs::path file = fs::path(default_thresholds_dir()) / report::kKnownIssuesFile;
    if (!fs::exists(file)) return {std::nullopt, fmt::format("no {} (give one with --known-issues FILE)", file.string())};
    return {report::load_known_issues_file(file.string()), ""};
  } catch (const report::InputError& e) {
    throw UsageError(e.what());
  }
}

std::vector<report::Finding> known_issue_findings(const VerdictOptions& v, const std::vector<report::RankEnv>& ranks,
                                                  bool from_log) {
  if (ranks.empty()) return {};
  KnownIssuesChoice choice;
  try {
    choice = known_issues_for(v);
  } catch (const std::exception& e) {
    return {{"VERDICT_INPUT_CHANGED", report::Tag::Warn, report::Priority::P1,
             fmt::format("the known-issues file was readable when the command started and is not now ({}): "
                         "known-bad versions were not checked",
                         e.what()),
             "", report::Subject::world()}};
  }
  if (!choice.list) return {report::known_issues_skipped(choice.skipped)};
  return report::known_version_findings(ranks, *choice.list, from_log);
}

}  // namespace collbench
