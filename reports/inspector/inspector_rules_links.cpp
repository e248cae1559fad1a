// The bandwidth rules that compare communicators of one shape with each other: the slow node
// (STRAGGLER_NODE, or SLOW_COMMUNICATORS without a host to blame) and the slow link between two
// hosts (SLOW_LINK). Both read one PeerComparison: the per-size medians are computed once.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common/units.h"
#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "reports/inspector/inspector_rules.h"
#include "reports/inspector/inspector_rules_common.h"

namespace collbench::report::inspector {
using namespace detail;

PeerComparison compare_peers(const Job& job) {
  struct Series {
    std::size_t comm;
    double median_gbs;
  };
  // Peers: the same collective and size on communicators of the same shape.
  std::map<std::tuple<std::string, std::uint64_t, int, int>, std::vector<Series>> shapes;
  for (std::size_t ci = 0; ci < job.comms.size(); ++ci) {
    const Comm& c = job.comms[ci];
    for (const auto& s : c.series) {
      if (s.busbw.size() < kMinSeries) continue;
      std::vector<double> v(s.busbw.begin(), s.busbw.end());
      shapes[{s.coll, s.bytes, c.n_ranks, c.nnodes}].push_back({ci, median(v)});
    }
  }
  PeerComparison out;
  for (const auto& [key, series] : shapes) {
    if (series.size() < kMinPeers) continue;
    ++out.shapes;
    std::vector<double> meds;
    for (const auto& e : series) meds.push_back(e.median_gbs);
    const double m = median(meds);
    std::vector<double> dev;
    for (double x : meds) dev.push_back(std::abs(x - m));
    const double mad = 1.4826 * median(dev);
    for (const auto& e : series) {
      PeerEntry p{e.comm, std::get<0>(key), std::get<1>(key), e.median_gbs, m, series.size(), false, ""};
      p.slow = e.median_gbs < (1 - kSlowShare) * m && m - e.median_gbs > kSlowMads * mad;
      p.what = fmt::format("{} {} {} at {:.1f} GB/s busbw against a median of {:.1f} GB/s over {} communicators of {} "
                           "ranks ({:.0f}% below)",
                           job.comms[e.comm].id, p.coll, size_text(p.bytes), p.median_gbs, m, series.size(),
                           std::get<2>(key), 100 * (1 - e.median_gbs / m));
      out.entries.push_back(std::move(p));
    }
  }
  return out;
}

namespace {

// "rests on ..." over every series compared with its peers.
std::string compared_basis(const Job& job, const PeerComparison& peers) {
  std::set<std::size_t> comms;
  std::uint64_t colls = 0;
  for (const auto& e : peers.entries) {
    comms.insert(e.comm);
    colls += job.comms[e.comm].joined;
  }
  return rests_on(colls, comms.size(), job.processes.size(), minutes(job.first_ts_us, job.last_ts_us));
}

struct Link {
  std::string a, b;
  std::vector<std::size_t> entries;  // its slow series
  std::size_t a_fine = 0, b_fine = 0;  // cross-node series without the other end, not slow
};

// Of `host`'s series on communicators without `other`: how many are not slow across nodes; and
// whether any is slow.
std::pair<std::size_t, bool> alone(const Job& job, const PeerComparison& peers, const std::string& host,
                                   const std::string& other) {
  std::size_t fine = 0;
  bool slow = false;
  for (const auto& e : peers.entries) {
    const auto h = comm_hosts(job, job.comms[e.comm]);
    if (!h.count(host) || h.count(other)) continue;
    if (e.slow) slow = true;
    else if (h.size() > 1) ++fine;
  }
  return {fine, slow};
}

std::vector<Link> slow_links(const Job& job, const PeerComparison& peers) {
  std::map<std::pair<std::string, std::string>, Link> links;
  for (std::size_t i = 0; i < peers.entries.size(); ++i) {
    const PeerEntry& e = peers.entries[i];
    if (!e.slow) continue;
    const auto h = comm_hosts(job, job.comms[e.comm]);
    if (h.size() != 2) continue;
    const std::string& a = *h.begin();
    const std::string& b = *h.rbegin();
    const auto [a_fine, a_slow] = alone(job, peers, a, b);
    const auto [b_fine, b_slow] = alone(job, peers, b, a);
    if (a_slow || b_slow || a_fine == 0 || b_fine == 0) continue;  // an end is slow, or cannot be told apart
    Link& l = links[{a, b}];
    l.a = a, l.b = b, l.a_fine = a_fine, l.b_fine = b_fine;
    l.entries.push_back(i);
  }
  std::vector<Link> out;
  for (auto& [key, l] : links) out.push_back(std::move(l));
  return out;
}

}  // namespace

std::vector<Finding> slow_link_findings(const Job& job, const PeerComparison& peers) {
  std::vector<Finding> out;
  for (const Link& l : slow_links(job, peers)) {
    std::vector<std::string> whats;
    for (std::size_t i : l.entries) whats.push_back(peers.entries[i].what);
    out.push_back({"SLOW_LINK", Tag::Fail, Priority::P1,
                   fmt::format("the path between {} and {}: their communicators ran slow against their peers while "
                               "neither host is slow without the other ({} ran at its peers' speed in {} other "
                               "communicator series across nodes, {} in {}): {}; {}. Check the path between the two "
                               "hosts (switch port, cabling, placement)",
                               l.a, l.b, l.a, l.a_fine, l.b, l.b_fine, listed(whats), compared_basis(job, peers)),
                   ref::kPairwise, Subject::link(l.a, l.b)});
  }
  return out;
}

std::vector<Finding> slow_node_findings(const Job& job) { return slow_node_findings(job, compare_peers(job)); }

std::vector<Finding> slow_node_findings(const Job& job, const PeerComparison& peers) {
  std::vector<Finding> out;
  if (peers.shapes == 0) {
    out.push_back({"INSPECTOR_TOO_LITTLE", Tag::Info, Priority::None,
                   fmt::format("slow nodes not judged: no collective and size ran on {} or more communicators of the "
                               "same shape with {} joined collectives each (a job with one communicator has nothing "
                               "to compare it with)",
                               kMinPeers, kMinSeries),
                   "", Subject::world()});
    return out;
  }
  // The slow series a slow link explains are that link's, not a node's.
  std::set<std::size_t> explained;
  for (const Link& l : slow_links(job, peers)) explained.insert(l.entries.begin(), l.entries.end());
  std::vector<std::size_t> slow;
  for (std::size_t i = 0; i < peers.entries.size(); ++i)
    if (peers.entries[i].slow && !explained.count(i)) slow.push_back(i);
  if (slow.empty()) return out;
  const std::string basis = compared_basis(job, peers);
  // The hosts every slow communicator has in common: a slow node slows each communicator it is in.
  std::set<std::string> common = comm_hosts(job, job.comms[peers.entries[slow[0]].comm]);
  for (std::size_t i : slow) {
    const auto h = comm_hosts(job, job.comms[peers.entries[i].comm]);
    std::set<std::string> both;
    std::set_intersection(common.begin(), common.end(), h.begin(), h.end(), std::inserter(both, both.end()));
    common = std::move(both);
  }
  std::vector<std::string> whats;
  for (std::size_t i : slow) whats.push_back(peers.entries[i].what);
  if (common.empty() || common.size() == hosts(job).size()) {
    out.push_back({"SLOW_COMMUNICATORS", Tag::Warn, Priority::P2,
                   fmt::format("communicators ran slow against their peers without one host in common to blame: {}; "
                               "{}",
                               fmt::join(whats, "; "), basis),
                   ref::kStraggler, Subject::world()});
    return out;
  }
  std::vector<std::string> named(common.begin(), common.end());
  std::vector<int> ranks;
  for (std::size_t p = 0; p < job.processes.size(); ++p)
    if (common.count(job.processes[p].host))
      if (const int r = job_rank(job, static_cast<int>(p)); r >= 0) ranks.push_back(r);
  out.push_back({"STRAGGLER_NODE", Tag::Fail, Priority::P1,
                 fmt::format("{} {} in every communicator that ran slow: {}; {}. Drain it and check its GPUs "
                             "(clocks, throttling), NICs and EFA devices",
                             named.size() == 1 ? "host" : "hosts", fmt::join(named, ", "), fmt::join(whats, "; "),
                             basis),
                 ref::kStraggler, Subject::nodes(named, ranks)});
  return out;
}

}  // namespace collbench::report::inspector
