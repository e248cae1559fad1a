#include "reports/inspector/inspector_rules.h"
#include "reports/inspector/inspector_drawings.h"
#include "reports/inspector/inspector_record.h"
#include "reports/inspector/inspector_rules_common.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/units.h"
#include "reports/core/references.h"
#include "reports/core/stats.h"
#include "reports/run/arrival.h"

namespace collbench::report::inspector {
namespace detail {

double minutes(std::uint64_t first_us, std::uint64_t last_us) {
  return last_us > first_us ? static_cast<double>(last_us - first_us) / 60e6 : 0.0;
}

std::uint64_t joined(const Job& job) {
  std::uint64_t n = 0;
  for (const auto& c : job.comms) n += c.joined;
  return n;
}

std::set<std::string> hosts(const Job& job) {
  std::set<std::string> h;
  for (const auto& p : job.processes)
    if (!p.host.empty()) h.insert(p.host);
  return h;
}

std::set<std::string> comm_hosts(const Job& job, const Comm& c) {
  std::set<std::string> h;
  for (const auto& r : c.ranks)
    if (r.process >= 0) h.insert(job.processes[static_cast<std::size_t>(r.process)].host);
  return h;
}

std::string rests_on(std::uint64_t collectives, std::size_t comms, std::size_t ranks, double mins) {
  return fmt::format("rests on {} joined collectives of {} communicator{}, {} ranks, {:.1f} minutes", collectives,
                     comms, comms == 1 ? "" : "s", ranks, mins);
}

int job_rank(const Job& job, int process) {
  int best = -1, size = 0;
  for (const auto& c : job.comms)
    for (std::size_t r = 0; r < c.ranks.size(); ++r)
      if (c.ranks[r].process == process && c.n_ranks > size) best = static_cast<int>(r), size = c.n_ranks;
  return best;
}

std::string listed(const std::vector<std::string>& items, std::size_t shown) {
  if (items.size() <= shown) return fmt::format("{}", fmt::join(items, "; "));
  return fmt::format("{}; and {} more", fmt::join(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(shown), "; "),
                     items.size() - shown);
}

}  // namespace detail

using namespace detail;

int late_rank_of(const Comm& c) {
  if (c.joined < kMinJoined || c.n_ranks < 3 || c.ranks.empty()) return -1;
  std::size_t top = 0;
  for (std::size_t r = 1; r < c.ranks.size(); ++r)
    if (c.ranks[r].late > c.ranks[top].late) top = r;
  const RankTally& t = c.ranks[top];
  const double share = static_cast<double>(t.late) / static_cast<double>(c.joined);
  const double waited = c.others_exec_us > 0 ? t.waited_us / c.others_exec_us : 0;
  // As run's LATE_RANK (reports/run/arrival.h): late in most of the collectives, and the waiting
  // a real part of the others' time.
  if (t.process < 0 || share <= kLateMajority || waited < kMinWaitFraction) return -1;
  return static_cast<int>(top);
}

std::vector<Finding> late_rank_findings(const Job& job) {
  struct Hit {
    std::string comm;
    int rank;
    std::uint64_t late, joined;
    double waited_share;
  };
  std::map<int, std::vector<Hit>> by_process;
  std::uint64_t judged = 0;
  std::size_t judged_comms = 0;
  for (const auto& c : job.comms) {
    if (c.joined < kMinJoined || c.n_ranks < 3) continue;
    ++judged_comms;
    judged += c.joined;
    const int top = late_rank_of(c);
    if (top < 0) continue;
    const RankTally& t = c.ranks[static_cast<std::size_t>(top)];
    by_process[t.process].push_back({c.id, top, t.late, c.joined, t.waited_us / c.others_exec_us});
  }
  std::vector<Finding> out;
  if (judged_comms == 0) {
    out.push_back({"INSPECTOR_TOO_LITTLE", Tag::Info, Priority::None,
                   fmt::format("late rank not judged: no communicator of 3 or more ranks has {} collectives that "
                               "every rank reported ({} joined in all)",
                               kMinJoined, joined(job)),
                   "", Subject::world()});
    return out;
  }
  const std::string basis =
      rests_on(judged, judged_comms, job.processes.size(), minutes(job.first_ts_us, job.last_ts_us));
  for (const auto& [process, hits] : by_process) {
    const Process& p = job.processes[static_cast<std::size_t>(process)];
    std::vector<std::string> where;
    for (const auto& h : hits)
      where.push_back(fmt::format("rank {} of {} ({} of {} collectives, others waiting {:.0f}% of their time)", h.rank,
                                  h.comm, h.late, h.joined, 100 * h.waited_share));
    out.push_back({"LATE_RANK", Tag::Warn, Priority::P1,
                   fmt::format("the process on {} (pid {}, '{}') arrived last at its collectives by a margin the "
                               "other ranks' spread cannot explain (they all show longer exec times: they waited "
                               "for it): {}; {}. Look for what else runs on {} (a busy CPU, a noisy neighbour, "
                               "host-side copies, a data loader)",
                               p.host, p.pid, p.file, fmt::join(where, "; "), basis, p.host),
                   ref::kStraggler, Subject::rank(job_rank(job, process), p.host)});
  }
  return out;
}

std::vector<Finding> stopped_findings(const Job& job) {
  std::vector<Finding> out;
  const double span = static_cast<double>(job.last_ts_us - job.first_ts_us);
  if (job.records == 0 || span < 2 * kStopMinUs) {  // too short to tell a stop from a pause
    out.push_back({"INSPECTOR_TOO_LITTLE", Tag::Info, Priority::None,
                   fmt::format("stopped processes not judged: the logs span {:.1f} minutes, and a stop is told from "
                               "a pause from {:.0f} minutes on",
                               span / 60e6, 2 * kStopMinUs / 60e6),
                   "", Subject::world()});
    return out;
  }
  struct ProcTime {
    std::uint64_t first = 0, last = 0, records = 0;
  };
  std::vector<ProcTime> pt(job.processes.size());
  for (const auto& c : job.comms)
    for (const auto& r : c.ranks) {
      if (r.process < 0) continue;
      ProcTime& t = pt[static_cast<std::size_t>(r.process)];
      t.last = std::max(t.last, r.last_ts_us);
      t.records += r.records;
    }
  for (const auto& c : job.comms)
    for (const auto& r : c.ranks)
      if (r.process >= 0) {
        ProcTime& t = pt[static_cast<std::size_t>(r.process)];
        if (t.first == 0 || c.first_ts_us < t.first) t.first = c.first_ts_us;
      }
  for (std::size_t p = 0; p < pt.size(); ++p) {
    const ProcTime& t = pt[p];
    if (t.records < 2) continue;
    const double gap = static_cast<double>(job.last_ts_us - t.last);
    const double interval = static_cast<double>(t.last - t.first) / static_cast<double>(t.records - 1);
    if (gap <= kStopMinUs || gap <= kStopIntervals * interval) continue;
    std::vector<std::string> last;
    std::uint64_t colls = 0;
    for (const auto& c : job.comms)
      for (std::size_t r = 0; r < c.ranks.size(); ++r)
        if (c.ranks[r].process == static_cast<int>(p)) {
          colls += c.ranks[r].records;
          std::uint64_t others = 0;
          for (const auto& o : c.ranks) others = std::max(others, o.last_sn);
          last.push_back(fmt::format("last coll_sn {} as rank {} of {} (its peers reached {})", c.ranks[r].last_sn, r,
                                     c.id, others));
        }
    const Process& proc = job.processes[p];
    out.push_back({"COLLECTIVES_STOPPED", Tag::Fail, Priority::P0,
                   fmt::format("collectives stopped appearing from the process on {} (pid {}, '{}') {:.1f} minutes "
                               "before the job's last record, while other processes went on: {}; rests on {} of its "
                               "collectives over {:.1f} minutes, {} ranks. It hangs or died: look at its stack "
                               "(py-spy, gdb) and the host's kernel log",
                               proc.host, proc.pid, proc.file, gap / 60e6, fmt::join(last, "; "), colls,
                               minutes(job.first_ts_us, job.last_ts_us), job.processes.size()),
                   ref::kTimeoutHang, Subject::rank(job_rank(job, static_cast<int>(p)), proc.host)});
  }
  return out;
}

std::vector<Finding> inspector_findings(const Job& job, const std::optional<InstanceThresholds>& thresholds) {
  std::vector<Finding> out;
  if (!job.truncated.empty() || !job.empty.empty())
    out.push_back({"INSPECTOR_STILL_WRITING", Tag::Info, Priority::None,
                   fmt::format("{} file(s) end in a line cut short and {} hold nothing yet: the job is still writing "
                               "them; what was complete was read{}",
                               job.truncated.size(), job.empty.size(),
                               job.truncated.empty() ? "" : fmt::format(" (first: '{}')", job.truncated.front())),
                   "", Subject::world()});
  std::vector<std::string> missing;
  for (const auto& c : job.comms) {
    std::size_t n = 0;
    for (const auto& r : c.ranks) n += r.process < 0;
    if (n > 0) missing.push_back(fmt::format("{} of {} ranks of {}", n, c.n_ranks, c.id));
  }
  if (!missing.empty())
    out.push_back({"INSPECTOR_RANKS_MISSING", Tag::Info, Priority::None,
                   fmt::format("no file holds {}: their collectives never join, and the rules judge the rest; give "
                               "analyze every process's file",
                               fmt::join(missing, ", ")),
                   "", Subject::world()});
  std::size_t problems = 0, too_little = 0;
  const PeerComparison peers = compare_peers(job);  // the per-size medians both bandwidth rules read
  for (auto&& found : {late_rank_findings(job), slow_link_findings(job, peers), slow_node_findings(job, peers),
                       stopped_findings(job), drift_findings(job), job_threshold_findings(job, thresholds)})
    for (auto& f : found) {
      problems += f.tag == Tag::Fail || f.tag == Tag::Warn;
      too_little += f.code == "INSPECTOR_TOO_LITTLE";
      out.push_back(f);
    }
  if (problems == 0 && too_little == 0)
    out.push_back({"INSPECTOR_HEALTHY", Tag::Pass, Priority::None,
                   fmt::format("no late rank, no slow node or link, no process whose collectives stopped, no drift; {}",
                               rests_on(joined(job), job.comms.size(), job.processes.size(),
                                        minutes(job.first_ts_us, job.last_ts_us))),
                   "", Subject::world()});
  return out;
}

std::string job_summary(const Job& job) {
  return fmt::format("NCCL Inspector {}: {} records from {} processes on {} hosts, {} communicators, {} joined "
                     "collectives, {:.1f} minutes",
                     kFormatVersion, job.records, job.processes.size(), hosts(job).size(), job.comms.size(),
                     joined(job), minutes(job.first_ts_us, job.last_ts_us));
}

nlohmann::json job_document(const Job& job) {
  nlohmann::json comms = nlohmann::json::array();
  for (const auto& c : job.comms) {
    const auto h = comm_hosts(job, c);
    comms.push_back({{"id", c.id},
                     {"n_ranks", c.n_ranks},
                     {"nnodes", c.nnodes},
                     {"joined", c.joined},
                     {"partial", c.partial},
                     {"first_coll_sn", c.min_sn},
                     {"last_coll_sn", c.max_sn},
                     {"hosts", std::vector<std::string>(h.begin(), h.end())},
                     {"series", series_json(job, c)}});
  }
  nlohmann::json procs = nlohmann::json::array();
  for (const auto& p : job.processes) procs.push_back({{"file", p.file}, {"host", p.host}, {"pid", p.pid}});
  return {{"schema", "collbench.inspector/1"},
          {"format_version", std::string(kFormatVersion)},
          {"records", job.records},
          {"p2p_records", job.p2p_records},
          {"first_dump_timestamp_us", job.first_ts_us},
          {"last_dump_timestamp_us", job.last_ts_us},
          {"processes", std::move(procs)},
          {"communicators", std::move(comms)},
          {"heatmaps", heatmaps_json(job)},
          {"truncated_files", job.truncated}};
}

}  // namespace collbench::report::inspector
