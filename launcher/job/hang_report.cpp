#include "launcher/job/hang_report.h"

#include <fmt/format.h>

#include <map>

#include "bench/mpi_check.h"
#include "common/short_list.h"
#include "launcher/job/peers.h"
#include "reports/core/references.h"

namespace collbench {
namespace {

constexpr const char* kWaitingKey = "collbench.waiting";
// Every waiting process posts within about the skew of their clocks for the step: a barrier apart.
constexpr double kAskWait_s = 5;

}  // namespace

std::vector<int> odd_ones(const std::vector<std::optional<std::string>>& posted) {
  std::map<std::string, int> count;
  int answered = 0;
  for (const auto& p : posted)
    if (p) ++count[*p], ++answered;
  std::string common;
  int most = 0;
  for (const auto& [step, n] : count)
    if (n > most) most = n, common = step;
  // A step only a half or fewer share is no reference: then only silence accuses.
  const bool majority = 2 * most > answered;
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(posted.size()); ++r) {
    const auto& p = posted[static_cast<std::size_t>(r)];
    if (!p || (majority && *p != common)) out.push_back(r);
  }
  return out;
}

std::vector<HangSuspect> hang_suspects(int rank, const std::string& what) {
  announce_to_peers(kWaitingKey, what);
  if (rank != 0) return {};
  std::vector<std::optional<std::string>> posted = peers_posted(kWaitingKey, kAskWait_s);
  if (posted.empty()) return {};  // no PMIx: nobody to ask
  posted[static_cast<std::size_t>(launcher_rank())] = what;
  std::vector<HangSuspect> out;
  for (int r : odd_ones(posted)) out.push_back({r, peer_host(r), posted[static_cast<std::size_t>(r)].value_or("")});
  return out;
}

report::Finding hang_finding(int rank, const std::string& what, double limit_s, const std::vector<HangSuspect>& suspects) {
  std::string message =
      fmt::format("rank {} (host {}): {} did not finish within --timeout {:g} s", rank, this_host(), what, limit_s);
  std::vector<std::string> silent, elsewhere;
  for (const auto& s : suspects) {
    const std::string who = fmt::format("rank {}{}", s.rank, s.host.empty() ? "" : fmt::format(" (host {})", s.host));
    if (s.at.empty()) silent.push_back(who);
    else elsewhere.push_back(fmt::format("{} is still at {}", who, s.at));
  }
  if (!silent.empty())
    message += fmt::format("; {} did not answer: {} stopped, frozen or cut off from the others",
                           short_list(silent, 16, ", "), silent.size() == 1 ? "it is" : "they are");
  if (!elsewhere.empty()) message += "; " + short_list(elsewhere, 8, "; ");
  report::Subject subject = report::Subject::world();
  if (suspects.size() == 1) subject = report::Subject::rank(suspects[0].rank, suspects[0].host);
  return {"COLLECTIVE_HANG", report::Tag::Fail, report::Priority::P0, std::move(message), report::ref::kTimeoutHang,
          std::move(subject)};
}

}  // namespace collbench
