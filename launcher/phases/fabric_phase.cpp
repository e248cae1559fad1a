#include "launcher/phases/fabric_phase.h"

#include <cstdio>

#include "bench/errors.h"
#include "bench/host_memory.h"
#include "launcher/job/agree.h"

#if !COLLBENCH_WITH_LIBFABRIC

namespace collbench {

constexpr const char* kNoLibfabric =
    "this collbench was built without libfabric; install libfabric-dev (or point PKG_CONFIG_PATH at "
    "/opt/amazon/efa/lib/pkgconfig) and rebuild";

bool fabric_available() { return false; }

PhaseResult fabric_phase(Control& control, const FabricPhaseSpec&) {
  if (control.rank() == 0) print_error(kNoLibfabric, 0);
  return failed_phase(kExitCouldNotRun, kNoLibfabric);
}

}  // namespace collbench

#else

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <span>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/host_load.h"
#include "bench/mpi_check.h"
#include "bench/ofi/endpoint.h"
#include "bench/ofi/lane_run.h"
#include "bench/ofi/lanes.h"
#include "bench/ofi/offers.h"
#include "bench/ofi/polling.h"
#include "bench/ofi/provider_choice.h"
#include "bench/schedules.h"
#include "bench/sizes.h"
#include "launcher/job/agree.h"
#include "launcher/job/budget.h"
#include "launcher/phases/confirmation.h"
#include "launcher/phases/phase_frame.h"
#include "launcher/probes/env_collect.h"
#include "launcher/phases/fabric_results.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/job/world.h"
#include "reports/core/journal.h"
#include "reports/core/references.h"
#include "reports/counters/counter_verdicts.h"

namespace collbench {
namespace {

using report::Finding;

[[noreturn]] void abort_run(Control& control, const std::string& line) {
  std::fprintf(stderr, "%s\n", line.c_str());
  control.abort(kExitCouldNotRun);
  std::abort();  // Control::abort does not return; the compiler cannot see that through the vtable
}

// Hosts by rank, nodes in order of their lowest rank, the units the schedule pairs.
struct Layout {
  std::string host;
  std::vector<std::string> hosts;
  std::vector<ofi::Unit> nodes, units;
  bool per_rank = false;  // one node: ranks are the units
  int local_rank = 0;
};

Layout fabric_layout(Control& control) {
  Layout l;
  l.host = this_host();
  l.hosts = control.all_gather_strings(l.host);
  l.nodes = ofi::nodes_of(l.hosts);
  l.units = ofi::fabric_units(l.nodes);
  l.per_rank = l.nodes.size() == 1;
  l.local_rank = ofi::local_index(l.nodes, control.rank());
  return l;
}

// Rank 0's record: the results so far and how many rounds reached it.
struct FabricRecord : EarlyRecord {
  std::mutex mutex;
  std::shared_ptr<FabricResults> results;
  std::size_t rounds = 0;
  std::string path;  // -o FILE, or empty

  std::string progress() override {
    std::lock_guard lock(mutex);
    return stopped_progress(rounds, "round", !path.empty());
  }
  nlohmann::json document_so_far(const Finding& why, int exit_code) override {
    std::lock_guard lock(mutex);
    return results->document({why}, exit_code);
  }
  void save_early(const nlohmann::json& doc) override {
    if (!path.empty()) report::write_file_atomically(path, doc.dump(2) + "\n", false);
  }
};

// Bad input first, before anything is measured or written (rank 0).
struct Inputs {
  ofi::ProviderChoice choice;
  std::string instance_type;
  std::optional<report::InstanceThresholds> thresholds;
};

void check_inputs(const FabricPhaseSpec& spec, Inputs& in) {
  const FabricOptions& o = spec.fabric;
  if (!o.output.empty()) {
    const auto dir = std::filesystem::absolute(o.output).parent_path();
    if (!std::filesystem::is_directory(dir))
      throw UsageError(fmt::format("-o {}: folder {} does not exist; create it or write elsewhere", o.output,
                                   dir.string()));
  }
  in.instance_type = local_instance_type(spec.verdict);
  in.thresholds = thresholds_for(spec.verdict, in.instance_type);
  in.choice = ofi::choose_provider(o.provider, ofi::rdm_provider_names(), ofi::all_provider_names());
}

// The endpoint and every rank's address in every rank's address vector; 0 or the agreed exit code.
int open_endpoint(Control& control, const FabricOptions& o, const Layout& l, const std::string& provider,
                  ofi::PollingPlan& polling, std::unique_ptr<ofi::RdmEndpoint>& ep) {
  const int rank = control.rank();
  const ofi::Who who{rank, l.host};
  ofi::InfoPtr info;
  if (int c = agree(control, [&] {
        info = ofi::pick_info(provider, !l.per_rank, l.local_rank, who);
        if (!info)
          throw RunError(fmt::format("provider {} offers no {}RDM endpoint on host {} (rank {}){}", provider,
                                     l.per_rank ? "" : "off-host ", l.host, rank,
                                     l.per_rank ? "" : "; a tcp endpoint on the loopback interface cannot reach other "
                                                       "nodes: check the interfaces, or FI_TCP_IFACE"));
        const ofi::EndpointFacts f = ofi::facts_of(*info);
        ofi::check_message_size(o.max_bytes, f.max_msg_size, f.provider);
      }))
    return c;
  // Spin on completions where the ranks sharing a machine fit on its cores, else yield.
  const std::vector<int> cores_by_rank = control.all_gather(online_cores());
  const std::vector<std::string> machines = control.all_gather_strings(machine_id());
  polling = o.polling == "auto" ? ofi::plan_polling(machines, cores_by_rank, l.hosts)
                                : ofi::forced_polling(o.polling == "spin" ? ofi::Polling::Spin : ofi::Polling::Yield,
                                                      control.size());
  if (int c = agree(control, [&] {
        const auto local = std::count(machines.begin(), machines.end(), machines[static_cast<std::size_t>(rank)]);
        check_host_buffers(o.max_bytes, 2, static_cast<int>(local), "send and receive buffers");
        ep = std::make_unique<ofi::RdmEndpoint>(std::move(info), o.max_bytes, o.window + 2, who,
                                                polling.by_rank[static_cast<std::size_t>(rank)]);
      }))
    return c;
  std::vector<std::vector<char>> names;
  const std::vector<char> mine = ep->name();
  for (const auto& s : control.all_gather_strings(std::string(mine.begin(), mine.end())))
    names.emplace_back(s.begin(), s.end());
  return agree(control, [&] { ep->insert_peers(names); });
}

ofi::LanePlan lane_plan(const FabricOptions& o) {
  ofi::LanePlan plan;
  for (std::uint64_t b : sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0)) {
    if (b <= o.latency_max) plan.latency_sizes.push_back(b);
    if (b >= o.bandwidth_min) plan.bandwidth_sizes.push_back(b);
  }
  plan.pingpong = {o.warmup, o.iters, 1, o.timeout_s};
  plan.stream = {o.bw_warmup, o.bw_iters, o.window, o.timeout_s};
  return plan;
}

// The rounds of one fabric run, each gathered to rank 0 as it ends (a stopped run keeps it).
class Rounds {
 public:
  Rounds(Control& control, const FabricOptions& o, const Layout& l, ofi::RdmEndpoint& ep, FabricRecord& record,
         const Budget& budget)
      : control_(control), o_(o), l_(l), ep_(ep), record_(record), budget_(budget), plan_(lane_plan(o)) {}
  double load() const { return load_; }

  // Runs `rounds`, numbered from `first`, with `later` rounds expected after them. Rounds the budget
  // does not reach are recorded as not measured.
  void run(const Schedule& rounds, int first, int later) {
    // Each measurement of a lane gets an even part of its round's share of the budget: a slow link
    // ends on time with fewer samples, the decision taken by the side that times (traffic.h).
    const auto measurements = static_cast<double>(plan_.latency_sizes.size() + 3 * plan_.bandwidth_sizes.size());
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      load_ = std::max(load_, runnable_per_core());
      const int rounds_left = static_cast<int>(rounds.size() - r) + later;
      const double slice = budget_.next_slice(control_, rounds_left, std::numeric_limits<double>::infinity());
      if (slice <= 0) {
        if (control_.rank() == 0)
          for (std::size_t j = r; j < rounds.size(); ++j) record_.results->add_not_measured(rounds[j].pairs);
        break;
      }
      plan_.pingpong.max_time_s = plan_.stream.max_time_s = slice / std::max(measurements, 1.0);
      const nlohmann::json mine = lane(rounds, static_cast<int>(r), first + static_cast<int>(r));
      load_ = std::max(load_, runnable_per_core());
      const std::vector<std::string> parts = control_.gather_strings(mine.dump());
      if (control_.rank() == 0) {
        std::lock_guard lock(record_.mutex);
        for (const auto& p : parts) record_.results->add_lanes(nlohmann::json::parse(p));
        ++record_.rounds;
      }
      control_.barrier();
    }
  }

 private:
  // This rank's lane of round `r` (numbered `index`), if it has one: its samples, or the job ends.
  nlohmann::json lane(const Schedule& rounds, int r, int index) {
    const int rank = control_.rank();
    nlohmann::json mine = nlohmann::json::array();
    auto lane = ofi::lane_of(rank, rounds, r, l_.units);
    if (!lane) return mine;
    lane->round = index;
    const bool initiator = lane->rank_a == rank;
    const int peer = initiator ? lane->rank_b : lane->rank_a;
    if (rank == o_.silent_rank)
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // --inject silent: never answer
    plan_.tag_base = static_cast<std::uint64_t>(index) * 100000;
    const std::string& peer_host = l_.hosts[static_cast<std::size_t>(peer)];
    try {
      mine.push_back(lane_samples_json(*lane, initiator, ofi::run_lane(ep_, peer, initiator, plan_)));
    } catch (const ofi::PeerTimeout& e) {
      const std::string& host = l_.hosts[static_cast<std::size_t>(e.peer)];
      const Finding f{"FABRIC_PEER_TIMEOUT", report::Tag::Fail, report::Priority::P0,
                      fmt::format("rank {} (host {}) got no answer from rank {} (host {}) in round {}: {}; that "
                                  "process is hung, dead or unreachable over {}",
                                  rank, l_.host, e.peer, host, index, e.phase, ep_.facts().provider),
                      report::ref::kTimeoutHang, report::Subject::rank(e.peer, host)};
      abort_run(control_, report::render_finding(f, false));
    } catch (const std::exception& e) {
      abort_run(control_, fmt::format("collbench: error: round {}, with rank {} (host {}): {}", index, peer, peer_host,
                                      e.what()));
    }
    return mine;
  }

  Control& control_;
  const FabricOptions& o_;
  const Layout& l_;
  ofi::RdmEndpoint& ep_;
  FabricRecord& record_;
  const Budget& budget_;
  ofi::LanePlan plan_;
  double load_ = 0;  // the most runnable tasks per core this rank saw around its rounds
};

// Units whose pairs disagree, or that look slow, measured again against the healthiest units, and
// doubtful links again, before any verdict (rank 0 decides).
Schedule confirmation(Control& control, FabricRecord& record, const Layout& l) {
  Schedule confirm;
  if (control.rank() == 0) {
    std::lock_guard lock(record.mutex);
    const std::vector<report::Attribution> first = record.results->first_verdicts();
    std::vector<const report::Attribution*> ptrs;
    for (const auto& a : first) ptrs.push_back(&a);
    confirm = confirmation_schedule(ptrs);
    record.results->add_confirmation(confirm);
    if (!confirm.empty()) {
      std::string text = fmt::format("# confirmation: {} round(s):", confirm.size());
      for (const auto& r : confirm)
        for (const auto& [a, b] : r.pairs) text += fmt::format(" {}<->{}", l.units[a].name, l.units[b].name);
      std::printf("%s\n", text.c_str());
      std::fflush(stdout);
    }
  }
  return broadcast_schedule(confirm, control);
}

// Rank 0: the verdicts and the document with the counters, for the command's ending.
PhaseResult judged(FabricRecord& record, const std::vector<double>& loads, const report::CounterReport& efa,
                   const std::string& path) {
  PhaseResult out;
  {
    std::lock_guard lock(record.mutex);
    record.results->set_load(loads);
    out.findings = record.results->judge();
  }
  report::add_counter_findings(out.findings, efa, "the fabric rounds");
  const auto document = [results = record.results, counters = report::counters_json(efa)](
                            const std::vector<Finding>& f, int code) {
    nlohmann::json doc = results->document(f, code);
    doc["counters"] = counters;
    return doc;
  };
  out.document = document;
  out.save = [document, path](const std::vector<Finding>& f, int code) {
    if (!path.empty()) report::write_file_atomically(path, document(f, code).dump(2) + "\n");
  };
  return out;
}

}  // namespace

bool fabric_available() { return true; }

PhaseResult fabric_phase(Control& control, const FabricPhaseSpec& spec) {
  const FabricOptions& o = spec.fabric;
  const int rank = control.rank();
  PhaseFrame frame(control, o.timeout_s, spec.color);
  const Layout l = fabric_layout(control);
  if (l.units.size() < 2)
    return skipped_phase("fabric needs two endpoints to pair: run at least 2 ranks (mpirun -np 2 ..., or one rank "
                         "per node with -N 1)");
  Inputs in;
  if (int c = agree(control, [&] { if (rank == 0) check_inputs(spec, in); })) return failed_phase(c, "set-up failed");
  in.choice.core = control.broadcast(in.choice.core);
  ofi::PollingPlan polling;
  std::unique_ptr<ofi::RdmEndpoint> ep;
  if (int c = open_endpoint(control, o, l, in.choice.core, polling, ep)) return failed_phase(c, "set-up failed");
  // What each node shows of EFA, for the profile check.
  const std::vector<int> efa_by_rank = control.all_gather(count_efa_devices(CollectOptions{}.infiniband_dir));

  auto record = std::make_shared<FabricRecord>();
  record->results = std::make_shared<FabricResults>(o, spec.argv, now_utc());
  record->path = o.output;
  const Schedule schedule = schedule_for_pattern(o.pattern, static_cast<int>(l.units.size()));
  // Rank 0's clock decides whether the budget fits another round; every rank follows.
  const Budget budget = Budget::for_rounds(o.budget_s, static_cast<int>(schedule.size()));
  if (rank == 0) {
    FabricResults& results = *record->results;
    results.set_layout(control.size(), l.nodes, l.units, l.per_rank, schedule);
    results.set_provider(in.choice, ep->facts(), ofi::libfabric_version());
    results.set_polling(polling.summary, polling.reason);
    results.set_environment(in.instance_type, in.thresholds, efa_by_rank);
    results.set_budget(budget.total_s());
    std::fputs(results.header().c_str(), stdout);
    std::fflush(stdout);
  }
  frame.keep(record);
  Rounds rounds(control, o, l, *ep, *record, budget);
  frame.start_counters();
  rounds.run(schedule, 0, 2);
  rounds.run(confirmation(control, *record, l), static_cast<int>(schedule.size()), 0);
  const report::CounterReport efa = frame.finish_counters();
  const double load = rounds.load();
  const std::vector<double> loads = control.gather_to_root(std::span<const double>(&load, 1));
  PhaseResult out;
  if (int c = agree(control, [&] {
        if (rank != 0) return;
        out = judged(*record, loads, efa, o.output);
      }))
    return failed_phase(c, "judging the results failed");
  ep.reset();
  return frame.ended(std::move(out));
}

}  // namespace collbench

#endif
