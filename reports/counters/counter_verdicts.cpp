#include "reports/counters/counter_verdicts.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>

#include "reports/core/references.h"

namespace collbench::report {
namespace {

constexpr std::size_t kListed = 8;  // rises named per host in one message; the JSON has them all

// Bandwidth findings that accuse a host, a link, a rail or a rank: counter evidence on the same host
// may explain them.
constexpr std::array<std::string_view, 18> kBandwidthCodes{
    "STRAGGLER_NODE",         "SLOW_LINK",
    "SLOW_NODE_LOCAL",        "SLOW_RAIL",
    "BUSBW_BELOW_THRESHOLD",  "BUSBW_LOW",
    "REGRESSION",             "REGRESSION_INCONCLUSIVE",
    "CURVE_DIP",              "GROUPS_INCONCLUSIVE",
    "HUNT_INCONCLUSIVE",      "FABRIC_INCONCLUSIVE",
    "FABRIC_SLOW_NODE_LATENCY", "FABRIC_SLOW_NODE_BANDWIDTH",
    "FABRIC_SLOW_LINK_LATENCY", "FABRIC_SLOW_LINK_BANDWIDTH",
    "LATE_RANK",              "FABRIC_PEER_TIMEOUT"};

struct Rise {
  std::string device;
  std::string counter;
  std::uint64_t delta = 0;
  std::uint64_t tx_pkts = 0;  // the same directory's tx_pkts delta, for the retransmit share
};

// Per host, in the order hosts were read: each error counter that rose.
std::vector<std::pair<std::string, std::vector<Rise>>> rises_by_host(const CounterReport& r) {
  std::vector<std::pair<std::string, std::vector<Rise>>> out;
  for (const auto& host : r.hosts) {
    std::vector<Rise> rises;
    for (const auto& e : r.entries) {
      if (e.host != host) continue;
      const auto tx = e.deltas.find("tx_pkts");
      for (const auto& [name, n] : e.deltas)
        if (n > 0 && counter_kind(name) == CounterKind::Error)
          rises.push_back({e.device, name, n, tx == e.deltas.end() ? 0 : tx->second});
    }
    if (!rises.empty()) out.emplace_back(host, std::move(rises));
  }
  return out;
}

std::string rise_text(const Rise& r) {
  std::string s = fmt::format("{} {} +{}", r.device, r.counter, r.delta);
  if (r.counter == "retrans_pkts" && r.tx_pkts > 0)
    s += fmt::format(" ({:.2g}% of {} tx_pkts)", 100.0 * static_cast<double>(r.delta) / static_cast<double>(r.tx_pkts),
                     r.tx_pkts);
  return s;
}

std::string rises_text(const std::vector<Rise>& rises) {
  std::string s;
  for (std::size_t i = 0; i < rises.size() && i < kListed; ++i) s += (i ? ", " : "") + rise_text(rises[i]);
  if (rises.size() > kListed) s += fmt::format(" and {} more (the document's counters)", rises.size() - kListed);
  return s;
}

std::string resets_text(const CounterReport& r) {
  std::vector<std::string> items;
  for (const auto& e : r.entries)
    for (const auto& name : e.reset) items.push_back(fmt::format("{} {} {}", e.host, e.device, name));
  if (items.empty()) return "";
  std::string s;
  for (std::size_t i = 0; i < items.size() && i < kListed; ++i) s += (i ? ", " : "") + items[i];
  if (items.size() > kListed) s += fmt::format(" and {} more", items.size() - kListed);
  return fmt::format("; counters that went back (a driver reload or device reset) were not judged: {}", s);
}

bool accuses(const Finding& f) { return f.tag == Tag::Fail || f.tag == Tag::Warn; }

}  // namespace

bool is_bandwidth_code(std::string_view code) {
  return std::find(kBandwidthCodes.begin(), kBandwidthCodes.end(), code) != kBandwidthCodes.end();
}

std::vector<Finding> counter_findings(const CounterReport& report, std::string_view during) {
  if (report.devices == 0) return {};  // no EFA device anywhere: nothing to claim, not even a pass
  std::vector<Finding> out;
  for (const auto& [host, rises] : rises_by_host(report)) {
    const auto ranks = report.ranks.find(host);
    out.push_back({"EFA_ERRORS_ROSE", Tag::Warn, Priority::P1,
                   fmt::format("{}: EFA error counters rose during {}: {}; retransmits and impaired or unresponsive "
                               "remote connections slow every collective through this node's EFA devices (the "
                               "counters are the node's, so another job on it counts too)",
                               host, during, rises_text(rises)),
                   ref::kEfaConfig,
                   Subject::node(host, ranks == report.ranks.end() ? std::vector<int>{} : ranks->second)});
  }
  if (out.empty())
    out.push_back({"EFA_COUNTERS_OK", Tag::Pass, Priority::None,
                   fmt::format("no EFA error counter rose during {} on {} node(s), {} device(s) (retransmits, drops, "
                               "remote connection events, failed work requests){}",
                               during, report.hosts.size(), report.devices, resets_text(report)),
                   "", Subject::world()});
  return out;
}

void link_counter_evidence(std::vector<Finding>& findings, const CounterReport& report) {
  for (const auto& [host, rises] : rises_by_host(report)) {
    auto counters = std::find_if(findings.begin(), findings.end(), [&](const Finding& f) {
      return f.code == "EFA_ERRORS_ROSE" && f.subject.hosts == std::vector<std::string>{host};
    });
    std::vector<std::string> named_by;
    for (auto& f : findings) {
      if (!accuses(f) || !is_bandwidth_code(f.code)) continue;
      if (std::find(f.subject.hosts.begin(), f.subject.hosts.end(), host) == f.subject.hosts.end()) continue;
      f.message += fmt::format("; EFA error counters on {} rose during the same phase: {} (EFA_ERRORS_ROSE)", host,
                               rises_text(rises));
      if (std::find(named_by.begin(), named_by.end(), f.code) == named_by.end()) named_by.push_back(f.code);
    }
    if (named_by.empty() || counters == findings.end()) continue;
    std::string codes;
    for (const auto& c : named_by) codes += (codes.empty() ? "" : ", ") + c;
    counters->message += fmt::format("; {} is also named by {}", host, codes);
  }
}

void add_counter_findings(std::vector<Finding>& findings, const CounterReport& report, std::string_view during) {
  for (auto& f : counter_findings(report, during)) findings.push_back(std::move(f));
  link_counter_evidence(findings, report);
}

}  // namespace collbench::report
