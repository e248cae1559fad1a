#include "reports/env/known_issue_verdicts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "reports/core/references.h"
#include "reports/env/nccl_log.h"

namespace collbench::report {
namespace {

std::string component_name(const std::string& key) {
  static const std::map<std::string, std::string> names = {
      {"nccl", "NCCL"},           {"ofi_plugin", "aws-ofi-nccl"}, {"efa_installer", "EFA installer"},
      {"libfabric", "libfabric"}, {"cuda_driver", "CUDA driver"}, {"cuda_runtime", "CUDA runtime"}};
  const auto it = names.find(key);
  return it == names.end() ? key : it->second;
}

template <typename T>
void add_unique(std::vector<T>& list, const T& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

struct Process {
  const RankEnv* env;
  std::map<std::string, std::string> versions;
};

// "host a (rank 0)", "hosts a, b (ranks 0-15)", "5 hosts: a, b, c, … (ranks 0-39)".
std::string where(const std::vector<const Process*>& ps, bool from_log) {
  if (from_log) return "in this log";
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  for (const auto* p : ps) {
    add_unique(hosts, p->env->host.empty() ? std::string("?") : p->env->host);
    ranks.push_back(p->env->rank);
  }
  const std::string rs = describe_ranks(ranks);
  if (hosts.size() == 1) return fmt::format("on host {} ({})", hosts[0], rs);
  if (hosts.size() <= 3) return fmt::format("on hosts {} ({})", fmt::join(hosts, ", "), rs);
  return fmt::format("on {} hosts: {}, {}, {}, \u2026 ({})", hosts.size(), hosts[0], hosts[1], hosts[2], rs);
}

// "NCCL 2.19.4+cuda12.2, EFA installer 1.28.0" for the components the entry names.
std::string versions_text(const KnownIssue& issue, const std::map<std::string, std::string>& versions) {
  std::vector<std::string> parts;
  for (const auto& component : known_issue_components())  // a fixed order, not the map's
    if (issue.when.count(component))
      parts.push_back(fmt::format("{} {}", component_name(component), versions.at(component)));
  return fmt::format("{}", fmt::join(parts, " with "));
}

Finding matched(const KnownIssue& issue, const std::vector<const Process*>& hit, std::size_t all, bool from_log) {
  // Ranks grouped by the versions that matched, in order of their first rank.
  std::vector<std::pair<std::string, std::vector<const Process*>>> groups;
  for (const auto* p : hit) {
    const std::string key = versions_text(issue, p->versions);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(p);
  }
  std::vector<std::string> parts;
  for (const auto& [text, ps] : groups) parts.push_back(fmt::format("{} {}", text, where(ps, from_log)));
  std::string caveat;
  if (from_log && !issue.unless_env.empty()) {
    std::vector<std::string> settings;
    for (const auto& [k, v] : issue.unless_env) settings.push_back(k + "=" + v);
    caveat = fmt::format(" (unless {} was set, which a log does not show)", fmt::join(settings, " or "));
  }
  Subject subject;
  if (!from_log && hit.size() < all) {
    std::vector<std::string> hosts;
    std::vector<int> ranks;
    for (const auto* p : hit) {
      add_unique(hosts, p->env->host);
      ranks.push_back(p->env->rank);
    }
    subject = Subject::nodes(hosts, ranks);
  }
  return {"KNOWN_BAD_VERSIONS",
          issue.tag,
          issue.priority,
          fmt::format("{}{}: {}; fix: {} (known issue {}, {})", fmt::join(parts, "; "), caveat, issue.message,
                      issue.fix, issue.id, issue.source),
          ref::kVersionMismatch,
          subject};
}

}  // namespace

std::map<std::string, std::string> known_versions(const RankEnv& rank) {
  std::map<std::string, std::string> v = rank.versions;
  if (rank.nccl_log) {
    const NcclLogFacts& log = *rank.nccl_log;
    if (!log.nccl_version.empty()) v.emplace("nccl", log.nccl_version);
    if (!log.ofi_plugin_version.empty()) v.emplace("ofi_plugin", log.ofi_plugin_version);
    if (!log.libfabric_version.empty()) v.emplace("libfabric", log.libfabric_version);
  }
  return v;
}

Finding known_issues_skipped(const std::string& why) {
  return {"KNOWN_ISSUES_SKIPPED", Tag::Info, Priority::None,
          fmt::format("known-bad version combinations not checked: {}", why), ""};
}

std::vector<Finding> known_version_findings(const std::vector<RankEnv>& ranks, const KnownIssueList& list,
                                            bool from_log) {
  std::vector<Process> processes;
  for (const auto& r : ranks) processes.push_back({&r, known_versions(r)});
  if (processes.empty()) return {};

  std::vector<Finding> out;
  int ruled_out = 0;
  std::vector<std::string> unchecked_ids;
  std::set<std::string> missing_keys;
  for (const auto& issue : list.issues) {
    std::vector<const Process*> hit;
    bool all_no = true;
    for (const auto& p : processes) {
      const Match m = match_issue(issue, p.versions, from_log ? nullptr : &p.env->env);
      if (m == Match::Yes) hit.push_back(&p);
      if (m != Match::No) all_no = false;
      if (m == Match::Unknown)
        for (const auto& [component, range] : issue.when) {
          const auto it = p.versions.find(component);
          if (it == p.versions.end() || !parse_version(it->second)) missing_keys.insert(component);
        }
    }
    if (!hit.empty()) out.push_back(matched(issue, hit, processes.size(), from_log));
    else if (all_no) ++ruled_out;
    else unchecked_ids.push_back(issue.id);
  }
  if (!out.empty()) return out;
  std::vector<std::string> missing;
  for (const auto& component : known_issue_components())
    if (missing_keys.count(component)) missing.push_back(component_name(component));
  const std::string unknown = missing.empty() ? std::string("the versions found are too coarse to decide")
                                              : fmt::format("{} not known", fmt::join(missing, ", "));
  if (ruled_out == 0)
    return {known_issues_skipped(list.issues.empty()
                                     ? fmt::format("{} lists none", list.file)
                                     : fmt::format("{} for the {} entries of {}, so nothing is claimed", unknown,
                                                   unchecked_ids.size(), list.file))};
  std::vector<std::string> seen;
  for (const auto& component : known_issue_components()) {
    std::vector<std::string> values;
    for (const auto& p : processes) {
      const auto it = p.versions.find(component);
      if (it != p.versions.end()) add_unique(values, it->second);
    }
    if (!values.empty()) seen.push_back(fmt::format("{} {}", component_name(component), fmt::join(values, " | ")));
  }
  std::string text = fmt::format("none of the {} known-bad version combinations in {} applies ({}{})", ruled_out,
                                 list.file, fmt::join(seen, ", "), from_log ? ", from the log" : "");
  if (!unchecked_ids.empty())
    text += fmt::format("; {} more not checked ({}): {}", unchecked_ids.size(), unknown, fmt::join(unchecked_ids, ", "));
  return {{"NO_KNOWN_BAD_VERSIONS", Tag::Pass, Priority::None, text, ""}};
}

}  // namespace collbench::report
