#include "launcher/phases/fabric_results.h"

#include <algorithm>
#include <cstdio>

#include "bench/sizes.h"
#include <fmt/format.h>

#include "reports/fabric/fabric_json.h"
#include "reports/pairs/busy_hosts.h"
#include "reports/fabric/fabric_math.h"
#include "reports/fabric/fabric_text.h"
#include "reports/fabric/fabric_verdicts.h"
#include "reports/core/journal.h"
#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "reports/core/summary.h"

namespace collbench {
namespace {

using nlohmann::json;

json sizes_json(const std::vector<ofi::SizeSamples>& v) {
  json out = json::array();
  for (const auto& s : v) out.push_back({s.bytes, s.seconds});
  return out;
}

// bytes -> seconds of one sample list in a lane object.
std::vector<std::pair<std::uint64_t, std::vector<double>>> sizes_from(const json& v) {
  std::vector<std::pair<std::uint64_t, std::vector<double>>> out;
  for (const auto& s : v) out.push_back({s[0].get<std::uint64_t>(), s[1].get<std::vector<double>>()});
  return out;
}

report::BandwidthPoint& point_for(report::FabricLane& l, std::uint64_t bytes, int window) {
  for (auto& p : l.bandwidth)
    if (p.bytes == bytes) return p;
  l.bandwidth.push_back({});
  l.bandwidth.back().bytes = bytes;
  l.bandwidth.back().window = window;
  return l.bandwidth.back();
}

}  // namespace

json lane_samples_json(const ofi::Lane& lane, bool initiator, const ofi::LaneSamples& s) {
  return {{"round", lane.round},   {"a", lane.a},
          {"b", lane.b},           {"lane", lane.lane},
          {"rank_a", lane.rank_a}, {"rank_b", lane.rank_b},
          {"initiator", initiator}, {"latency", sizes_json(s.latency)},
          {"forward", sizes_json(s.forward)}, {"backward", sizes_json(s.backward)},
          {"bidir", sizes_json(s.bidir)}, {"latency_starved_at", s.latency_starved_at},
          {"bandwidth_starved_at", s.bandwidth_starved_at}};
}

FabricResults::FabricResults(const FabricOptions& o, std::vector<std::string> argv, std::string started_at) {
  run_.tool_version = COLLBENCH_VERSION;
  run_.started_at = std::move(started_at);
  run_.argv = std::move(argv);
  run_.pattern = o.pattern;
  run_.options = {o.min_bytes, o.max_bytes, o.factor, o.latency_max, o.bandwidth_min, o.iters, o.warmup,
                  o.bw_iters,  o.bw_warmup, o.window, o.timeout_s};
  run_.provider.requested = o.provider;
  for (std::uint64_t b : sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0)) {
    if (b <= o.latency_max && run_.latency_bytes == 0) run_.latency_bytes = b;
    if (b >= o.bandwidth_min) run_.bandwidth_bytes = b;
  }
  planned_bandwidth_bytes_ = run_.bandwidth_bytes;
}

void FabricResults::set_layout(int ranks, const std::vector<ofi::Unit>& nodes, const std::vector<ofi::Unit>& units,
                               bool per_rank, const Schedule& schedule) {
  run_.ranks = ranks;
  for (const auto& n : nodes) run_.nodes.push_back({n.name, n.ranks});
  for (const auto& u : units) run_.units.push_back({u.name, u.ranks});
  run_.per_rank = per_rank;
  for (const auto& r : schedule) run_.rounds.push_back(r.pairs);
}

void FabricResults::set_provider(const ofi::ProviderChoice& choice, const ofi::EndpointFacts& f,
                                 const std::string& libfabric) {
  auto& p = run_.provider;
  p.name = f.provider;
  p.core = ofi::core_provider(f.provider);
  p.over_ip = ofi::is_ip_provider(p.core);
  p.reason = choice.reason;
  p.fell_back = choice.fell_back;
  p.fabric = f.fabric;
  p.domain = f.domain;
  p.libfabric = libfabric;
  p.messaging = f.tagged ? "tagged" : "msg";
  p.mr_local = f.mr_local;
  p.max_msg_size = f.max_msg_size;
  p.inject_size = f.inject_size;
}

void FabricResults::set_polling(const std::string& polling, const std::string& reason) {
  run_.provider.polling = polling;
  run_.provider.polling_reason = reason;
}

void FabricResults::set_environment(const std::string& instance_type,
                                    const std::optional<report::InstanceThresholds>& t,
                                    const std::vector<int>& efa_by_rank) {
  run_.instance_type = instance_type;
  if (t) profile_ = t->hardware;
  // A node's count is the fewest any of its ranks saw.
  for (const auto& n : run_.nodes) {
    int fewest = INT32_MAX;
    for (int r : n.ranks) fewest = std::min(fewest, efa_by_rank.at(static_cast<std::size_t>(r)));
    run_.efa_devices.push_back({n.name, fewest});
  }
}

void FabricResults::set_load(const std::vector<double>& runnable_by_rank) {
  run_.runnable_per_core.clear();
  for (const auto& n : run_.nodes) {
    double busiest = 0;
    for (int r : n.ranks)
      if (static_cast<std::size_t>(r) < runnable_by_rank.size())
        busiest = std::max(busiest, runnable_by_rank[static_cast<std::size_t>(r)]);
    run_.runnable_per_core.push_back(busiest);
  }
}

std::string FabricResults::header() const { return report::render_fabric_header(run_); }

report::FabricLane& FabricResults::lane(int round, int a, int b, int lane, int rank_a, int rank_b) {
  auto pair = std::find_if(run_.pairs.begin(), run_.pairs.end(),
                           [&](const report::FabricPair& p) { return p.round == round && p.a == a && p.b == b; });
  if (pair == run_.pairs.end()) pair = run_.pairs.insert(run_.pairs.end(), report::FabricPair{round, a, b, {}});
  auto l = std::find_if(pair->lanes.begin(), pair->lanes.end(), [&](const auto& x) { return x.lane == lane; });
  if (l == pair->lanes.end()) l = pair->lanes.insert(pair->lanes.end(), report::FabricLane{lane, rank_a, rank_b, {}, {}});
  return *l;
}

void FabricResults::add_lanes(const json& lanes) {
  const int window = run_.options.window;
  for (const auto& j : lanes) {
    report::FabricLane& l = lane(j["round"], j["a"], j["b"], j["lane"], j["rank_a"], j["rank_b"]);
    // Both sides report the same sizes (traffic.h); either entry may come first.
    l.latency_starved_at = std::max(l.latency_starved_at, j["latency_starved_at"].get<std::uint64_t>());
    l.bandwidth_starved_at = std::max(l.bandwidth_starved_at, j["bandwidth_starved_at"].get<std::uint64_t>());
    for (const auto& [bytes, s] : sizes_from(j["latency"])) l.latency.push_back(report::latency_point(bytes, s));
    for (const auto& [bytes, s] : sizes_from(j["forward"])) {
      auto& p = point_for(l, bytes, window);
      const auto gbs = report::stream_gbs(bytes, window, s);
      p.a_to_b_gbs = report::median(gbs);
      p.samples = gbs.size();
      p.uni_gbs.insert(p.uni_gbs.end(), gbs.begin(), gbs.end());
    }
    for (const auto& [bytes, s] : sizes_from(j["backward"])) {
      auto& p = point_for(l, bytes, window);
      const auto gbs = report::stream_gbs(bytes, window, s);
      p.b_to_a_gbs = report::median(gbs);
      p.uni_gbs.insert(p.uni_gbs.end(), gbs.begin(), gbs.end());
    }
    for (const auto& [bytes, s] : sizes_from(j["bidir"]))
      point_for(l, bytes, window).bidir_gbs = report::median(report::stream_gbs(bytes, window, s, 2));
  }
  // Lanes starved of time stopped short: every verdict, the confirmation's plan included, is taken
  // at the largest size all lanes have.
  if (const std::uint64_t common = report::common_bandwidth_bytes(run_)) run_.bandwidth_bytes = common;
}

void FabricResults::add_confirmation(const Schedule& rounds) {
  run_.main_rounds = static_cast<int>(run_.rounds.size());
  for (const auto& r : rounds) run_.rounds.push_back(r.pairs);
}

void FabricResults::add_not_measured(const std::vector<std::pair<int, int>>& pairs) {
  run_.not_measured.insert(run_.not_measured.end(), pairs.begin(), pairs.end());
}

std::vector<report::Attribution> FabricResults::first_verdicts() const {
  std::vector<report::Attribution> out;
  for (auto m : {report::FabricMeasure::Latency, report::FabricMeasure::Bandwidth}) {
    const auto samples = report::fabric_pair_samples(run_, m);
    if (!samples.empty())
      out.push_back(report::attribute(samples, static_cast<int>(run_.units.size()), report::fabric_attribution_options(m)));
  }
  return out;
}

std::vector<report::Finding> FabricResults::judge() {
  std::sort(run_.pairs.begin(), run_.pairs.end(), [](const auto& x, const auto& y) {
    return std::tie(x.round, x.a, x.b) < std::tie(y.round, y.a, y.b);
  });
  for (auto& p : run_.pairs) {
    std::sort(p.lanes.begin(), p.lanes.end(), [](const auto& x, const auto& y) { return x.lane < y.lane; });
    for (auto& l : p.lanes)
      std::sort(l.bandwidth.begin(), l.bandwidth.end(), [](const auto& x, const auto& y) { return x.bytes < y.bytes; });
  }
  const int n = static_cast<int>(run_.units.size());
  std::vector<report::NodeEfa> efa;
  for (const auto& [node, count] : run_.efa_devices) efa.push_back({node, count});
  std::vector<report::Finding> findings =
      report::fabric_environment_findings(run_.provider, run_.instance_type, profile_, efa);

  std::vector<std::string> node_names;
  for (const auto& node : run_.nodes) node_names.push_back(node.name);
  const auto busy = report::busy_hosts_finding(run_.runnable_per_core, node_names,
                                               {"the fabric rounds", "",
                                                " (for latency, four times theirs or more), and a pair slow on "
                                                "latency is doubted, not named"});
  if (busy) findings.push_back(*busy);

  std::optional<report::Attribution>&lat = latency_, &bw = bandwidth_;
  std::string text = report::render_latency_table(run_) + report::render_bandwidth_table(run_);
  for (auto m : {report::FabricMeasure::Latency, report::FabricMeasure::Bandwidth}) {
    const auto samples = report::fabric_pair_samples(run_, m);
    if (samples.empty()) continue;
    auto& slot = m == report::FabricMeasure::Latency ? lat : bw;
    report::AttributionOptions rule = report::fabric_attribution_options(m);
    rule.require_confirmation = run_.main_rounds >= 0;
    if (busy) rule = report::busy_host_rule(rule);
    slot = report::attribute(samples, n, rule);
    if (busy && m == report::FabricMeasure::Latency) report::doubt_links_on_busy_hosts(*slot);
    text += report::render_fabric_matrix(*slot, run_, m == report::FabricMeasure::Latency);
    const auto f = report::fabric_attribution_findings(*slot, run_, m);
    findings.insert(findings.end(), f.begin(), f.end());
  }
  if (auto f = report::fabric_skipped_sizes_finding(run_, planned_bandwidth_bytes_)) findings.push_back(std::move(*f));
  if (!run_.not_measured.empty()) {
    std::string pairs;
    for (const auto& [a, b] : run_.not_measured)
      pairs += fmt::format("{}{}<->{}", pairs.empty() ? "" : ", ", run_.units[a].name, run_.units[b].name);
    findings.push_back({"FABRIC_BUDGET_SPENT", report::Tag::Warn, report::Priority::P2,
                        fmt::format("the budget of {:.0f} s ran out before these pairs were measured: {}; the verdicts "
                                    "use what was measured; rerun with a larger --budget or fewer sizes",
                                    run_.budget_s, pairs),
                        report::ref::kPairwise});
  }
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  return findings;
}

nlohmann::json FabricResults::document(const std::vector<report::Finding>& findings, int exit_code) const {
  return report::fabric_document(run_, latency_ ? &*latency_ : nullptr, bandwidth_ ? &*bandwidth_ : nullptr, findings,
                                 exit_code);
}

}  // namespace collbench
