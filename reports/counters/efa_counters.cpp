#include "reports/counters/efa_counters.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace collbench::report {
namespace {

using K = CounterKind;

// The efa driver's counter names: Linux drivers/infiniband/hw/efa/efa_verbs.c, EFA_DEFINE_PORT_STATS
// (under ports/1/hw_counters/; the rdma_write_* and network ones, retrans_* to
// impaired_remote_conn_events, come from the device on Nitro v4 and later) and
// EFA_DEFINE_DEVICE_STATS (under hw_counters/). Error: retransmits, drops, remote connection
// events and failed work requests or commands.
constexpr std::array<EfaCounterInfo, 34> kTable{{
    {"tx_bytes", K::Traffic},
    {"tx_pkts", K::Traffic},
    {"rx_bytes", K::Traffic},
    {"rx_pkts", K::Traffic},
    {"rx_drops", K::Error},
    {"send_bytes", K::Traffic},
    {"send_wrs", K::Traffic},
    {"recv_bytes", K::Traffic},
    {"recv_wrs", K::Traffic},
    {"rdma_read_wrs", K::Traffic},
    {"rdma_read_bytes", K::Traffic},
    {"rdma_read_wr_err", K::Error},
    {"rdma_read_resp_bytes", K::Traffic},
    {"rdma_write_wrs", K::Traffic},
    {"rdma_write_bytes", K::Traffic},
    {"rdma_write_wr_err", K::Error},
    {"rdma_write_recv_bytes", K::Traffic},
    {"retrans_bytes", K::Error},
    {"retrans_pkts", K::Error},
    {"retrans_timeout_events", K::Error},
    {"unresponsive_remote_events", K::Error},
    {"impaired_remote_conn_events", K::Error},
    {"submitted_cmds", K::Traffic},
    {"completed_cmds", K::Traffic},
    {"cmds_err", K::Error},
    {"no_completion_cmds", K::Error},
    {"keep_alive_rcvd", K::Traffic},
    {"alloc_pd_err", K::Error},
    {"create_qp_err", K::Error},
    {"create_cq_err", K::Error},
    {"reg_mr_err", K::Error},
    {"alloc_ucontext_err", K::Error},
    {"create_ah_err", K::Error},
    {"mmap_err", K::Error},
}};

const CounterSet* find_set(const CounterSnapshot& s, const std::string& device, int port) {
  for (const auto& c : s)
    if (c.device == device && c.port == port) return &c;
  return nullptr;
}

nlohmann::json entry_json(const CounterDelta& d) {
  nlohmann::json deltas = nlohmann::json::object();
  for (const auto& [name, n] : d.deltas) deltas[name] = n;
  return {{"host", d.host},
          {"device", d.device},
          {"port", d.port > 0 ? nlohmann::json(d.port) : nlohmann::json(nullptr)},
          {"deltas", std::move(deltas)},
          {"reset", d.reset}};
}

CounterDelta entry_of(const nlohmann::json& j) {
  CounterDelta d;
  d.host = j.at("host").get<std::string>();
  d.device = j.at("device").get<std::string>();
  d.port = j.at("port").is_null() ? 0 : j.at("port").get<int>();
  for (const auto& [name, n] : j.at("deltas").items()) d.deltas[name] = n.get<std::uint64_t>();
  d.reset = j.at("reset").get<std::vector<std::string>>();
  return d;
}

}  // namespace

std::span<const EfaCounterInfo> efa_counter_table() { return kTable; }

CounterKind counter_kind(std::string_view name) {
  for (const auto& c : kTable)
    if (c.name == name) return c.kind;
  return CounterKind::Traffic;
}

std::vector<CounterDelta> counter_deltas(const std::string& host, const CounterSnapshot& before,
                                         const CounterSnapshot& after) {
  std::vector<CounterDelta> out;
  for (const auto& a : after) {
    const CounterSet* b = find_set(before, a.device, a.port);
    if (!b) continue;
    CounterDelta d{host, a.device, a.port, {}, {}};
    for (const auto& [name, now] : a.values) {
      const auto was = b->values.find(name);
      if (was == b->values.end()) continue;
      if (now < was->second) d.reset.push_back(name);
      else d.deltas[name] = now - was->second;
    }
    out.push_back(std::move(d));
  }
  std::sort(out.begin(), out.end(),
            [](const CounterDelta& x, const CounterDelta& y) { return std::tie(x.device, x.port) < std::tie(y.device, y.port); });
  return out;
}

nlohmann::json node_counters_json(const std::string& host, int devices, const std::vector<CounterDelta>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : entries) list.push_back(entry_json(e));
  return {{"host", host}, {"devices", devices}, {"entries", std::move(list)}};
}

CounterReport merge_node_counters(const std::vector<std::string>& parts, const std::vector<std::string>& host_of_rank) {
  CounterReport r;
  for (std::size_t rank = 0; rank < host_of_rank.size(); ++rank)
    r.ranks[host_of_rank[rank]].push_back(static_cast<int>(rank));
  for (const auto& p : parts) {
    if (p.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(p);
    r.hosts.push_back(j.at("host").get<std::string>());
    r.devices += j.at("devices").get<int>();
    for (const auto& e : j.at("entries")) r.entries.push_back(entry_of(e));
  }
  return r;
}

nlohmann::json counters_json(const CounterReport& report) {
  nlohmann::json j = {{"devices", report.devices}};
  if (report.devices == 0) return j;
  j["hosts"] = report.hosts;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : report.entries) list.push_back(entry_json(e));
  j["entries"] = std::move(list);
  return j;
}

}  // namespace collbench::report
