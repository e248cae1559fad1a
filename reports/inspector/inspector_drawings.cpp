#include "reports/inspector/inspector_drawings.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reports/inspector/inspector_rules.h"

namespace collbench::report::inspector {

using nlohmann::json;

namespace {

double seconds_since(const Job& job, std::uint64_t ts_us) {
  if (ts_us <= job.first_ts_us) return 0;
  return std::round(static_cast<double>(ts_us - job.first_ts_us) / 1e4) / 100;  // to 10 ms
}

double rounded(double v, double scale) { return std::round(v * scale) / scale; }

}  // namespace

json series_json(const Job& job, const Comm& c) {
  json out = json::array();
  for (const auto& s : c.series) {
    const std::size_t n = s.busbw.size();
    const std::size_t group = std::max<std::size_t>(1, (n + kDocPoints - 1) / kDocPoints);
    json t = json::array(), bw = json::array();
    for (std::size_t i = 0; i < n; i += group) {
      const std::size_t end = std::min(n, i + group);
      double sum = 0, ts = 0;
      for (std::size_t k = i; k < end; ++k) {
        sum += s.busbw[k];
        ts += k < s.ts_us.size() ? static_cast<double>(s.ts_us[k]) : 0;
      }
      const double m = static_cast<double>(end - i);
      t.push_back(seconds_since(job, static_cast<std::uint64_t>(ts / m)));
      bw.push_back(rounded(sum / m, 100));
    }
    out.push_back({{"collective", s.coll},
                   {"bytes", s.bytes},
                   {"samples_per_point", s.stride * group},
                   {"t_s", std::move(t)},
                   {"busbw_gbs", std::move(bw)}});
  }
  return out;
}

json heatmaps_json(const Job& job) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < job.comms.size(); ++i)
    if (job.comms[i].n_ranks >= 3 && job.comms[i].lateness.used() > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const Comm &x = job.comms[a], &y = job.comms[b];
    const bool lx = late_rank_of(x) >= 0, ly = late_rank_of(y) >= 0;
    return lx != ly ? lx : x.n_ranks > y.n_ranks;
  });
  if (order.size() > kDocHeatmaps) order.resize(kDocHeatmaps);
  json out = json::array();
  for (std::size_t i : order) {
    const Comm& c = job.comms[i];
    const LatenessBins& l = c.lateness;
    const std::size_t bins = l.used();
    json hosts = json::array(), rows = json::array(), count = json::array(), first = json::array(),
         last = json::array();
    for (const auto& r : c.ranks)
      hosts.push_back(r.process >= 0 ? job.processes[static_cast<std::size_t>(r.process)].host : "");
    for (std::size_t b = 0; b < bins; ++b) {
      count.push_back(l.collectives[b]);
      first.push_back(seconds_since(job, l.first_ts_us[b]));
      last.push_back(seconds_since(job, l.last_ts_us[b]));
    }
    for (std::size_t r = 0; r < c.ranks.size(); ++r) {
      json row = json::array();
      for (std::size_t b = 0; b < bins; ++b) row.push_back(rounded(100.0 * l.mean(r, b), 10));
      rows.push_back(std::move(row));
    }
    const int late = late_rank_of(c);
    out.push_back({{"communicator", c.id},
                   {"n_ranks", c.n_ranks},
                   {"nnodes", c.nnodes},
                   {"first_coll_sn", l.first_sn},
                   {"coll_sn_per_bin", l.width},
                   {"late_rank", late >= 0 ? json(late) : json()},
                   {"rank_hosts", std::move(hosts)},
                   {"bin_collectives", std::move(count)},
                   {"bin_first_t_s", std::move(first)},
                   {"bin_last_t_s", std::move(last)},
                   {"late_percent", std::move(rows)}});
  }
  return out;
}

}  // namespace collbench::report::inspector
