#include "reports/preflight/scheduler_hints.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace collbench::report {
namespace {

// Slurm's reason is free text; quotes inside it would end the shell word.
std::string shell_safe(std::string s) {
  std::replace(s.begin(), s.end(), '"', '\'');
  return s;
}

// A Kubernetes label value: at most 63 of [A-Za-z0-9._-], starting and ending alphanumeric.
std::string label_value(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-') ? c : '_';
  if (out.size() > 63) out.resize(63);
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.back()))) out.pop_back();
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(out.begin());
  return out.empty() ? "fail" : out;
}

}  // namespace

std::vector<SchedulerHint> scheduler_hints(const std::vector<Finding>& findings, bool in_kubernetes) {
  std::vector<SchedulerHint> hints;
  for (const auto& f : findings) {
    if (f.tag != Tag::Fail) continue;
    if (f.subject.kind != SubjectKind::Node && f.subject.kind != SubjectKind::Rank) continue;
    for (const auto& host : f.subject.hosts) {
      auto it = std::find_if(hints.begin(), hints.end(), [&](const auto& h) { return h.host == host; });
      if (it == hints.end()) it = hints.insert(hints.end(), SchedulerHint{host, {}, "", ""});
      if (std::find(it->codes.begin(), it->codes.end(), f.code) == it->codes.end()) it->codes.push_back(f.code);
    }
  }
  for (auto& h : hints) {
    const std::string why = fmt::format("collbench preflight: {}", fmt::join(h.codes, ", "));
    h.slurm = fmt::format("scontrol update nodename={} state=drain reason=\"{}\"", h.host, shell_safe(why));
    const std::string node =
        in_kubernetes ? fmt::format("\"$(kubectl get pod {} -o jsonpath='{{.spec.nodeName}}')\"", h.host) : h.host;
    h.kubernetes = fmt::format("kubectl taint nodes {} collbench.io/preflight={}:NoSchedule --overwrite", node,
                               label_value(h.codes.front()));
  }
  return hints;
}

std::string render_hints(const std::vector<SchedulerHint>& hints) {
  if (hints.empty()) return "";
  std::string out = "#\n# Scheduler hints for the nodes named above (printed, not run):\n";
  for (const auto& h : hints) out += fmt::format("#   {}\n#     slurm: {}\n#     k8s:   {}\n", h.host, h.slurm, h.kubernetes);
  return out;
}

nlohmann::json to_json(const SchedulerHint& h) {
  return {{"host", h.host}, {"codes", h.codes}, {"slurm", h.slurm}, {"kubernetes", h.kubernetes}};
}

}  // namespace collbench::report
