#include "launcher/fabric_phase.h"

#include <cstdio>

#include "bench/errors.h"
#include "bench/host_memory.h"
#include "launcher/agree.h"

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
#include "launcher/agree.h"
#include "launcher/budget.h"
#include "launcher/confirmation.h"
#include "launcher/efa_counters_read.h"
#include "launcher/env_collect.h"
#include "launcher/fabric_results.h"
#include "launcher/stop_signals.h"
#include "launcher/verdicts.h"
#include "launcher/world.h"
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

}  // namespace

bool fabric_available() { return true; }

PhaseResult fabric_phase(Control& control, const FabricPhaseSpec& spec) {
  const FabricOptions& o = spec.fabric;
  const Budget wall(0);
  const int rank = control.rank(), size = control.size();
  const std::string host = this_host();
  const ofi::Who who{rank, host};

  // Layout: hosts by rank, nodes in order of their lowest rank, the units the schedule pairs.
  const std::vector<std::string> hosts = control.all_gather_strings(host);
  const std::vector<ofi::Unit> nodes = ofi::nodes_of(hosts);
  const std::vector<ofi::Unit> units = ofi::fabric_units(nodes);
  const bool per_rank = nodes.size() == 1;
  const int local_rank = ofi::local_index(nodes, rank);
  if (units.size() < 2)
    return skipped_phase("fabric needs two endpoints to pair: run at least 2 ranks (mpirun -np 2 ..., or one rank "
                         "per node with -N 1)");

  // Bad input first, before anything is measured or written.
  ofi::ProviderChoice choice;
  std::string instance_type;
  std::optional<report::InstanceThresholds> thresholds;
  if (int c = agree(control, [&] {
        if (rank != 0) return;
        if (!o.output.empty()) {
          const auto dir = std::filesystem::absolute(o.output).parent_path();
          if (!std::filesystem::is_directory(dir))
            throw UsageError(fmt::format("-o {}: folder {} does not exist; create it or write elsewhere", o.output,
                                         dir.string()));
        }
        instance_type = local_instance_type(spec.verdict);
        thresholds = thresholds_for(spec.verdict, instance_type);
        choice = ofi::choose_provider(o.provider, ofi::rdm_provider_names(), ofi::all_provider_names());
      }))
    return failed_phase(c, "set-up failed");
  choice.core = control.broadcast(choice.core);

  ofi::InfoPtr info;
  if (int c = agree(control, [&] {
        info = ofi::pick_info(choice.core, !per_rank, local_rank, who);
        if (!info)
          throw RunError(fmt::format("provider {} offers no {}RDM endpoint on host {} (rank {}){}", choice.core,
                                     per_rank ? "" : "off-host ", host, rank,
                                     per_rank ? "" : "; a tcp endpoint on the loopback interface cannot reach other "
                                                     "nodes: check the interfaces, or FI_TCP_IFACE"));
        const ofi::EndpointFacts f = ofi::facts_of(*info);
        ofi::check_message_size(o.max_bytes, f.max_msg_size, f.provider);
      }))
    return failed_phase(c, "set-up failed");

  // Spin on completions where the ranks sharing a machine fit on its cores, else yield.
  const std::vector<int> cores_by_rank = control.all_gather(online_cores());
  const std::vector<std::string> machines = control.all_gather_strings(machine_id());
  const ofi::PollingPlan polling =
      o.polling == "auto" ? ofi::plan_polling(machines, cores_by_rank, hosts)
                          : ofi::forced_polling(o.polling == "spin" ? ofi::Polling::Spin : ofi::Polling::Yield, size);

  // Endpoints, and every rank's address in every rank's address vector.
  std::unique_ptr<ofi::RdmEndpoint> ep;
  if (int c = agree(control,
                    [&] {
                      const auto local = std::count(machines.begin(), machines.end(), machines[static_cast<std::size_t>(rank)]);
                      check_host_buffers(o.max_bytes, 2, static_cast<int>(local), "send and receive buffers");
                      ep = std::make_unique<ofi::RdmEndpoint>(std::move(info), o.max_bytes, o.window + 2, who,
                                                              polling.by_rank[static_cast<std::size_t>(rank)]);
                    }))
    return failed_phase(c, "set-up failed");
  std::vector<std::vector<char>> names;
  {
    const std::vector<char> mine = ep->name();
    for (const auto& s : control.all_gather_strings(std::string(mine.begin(), mine.end())))
      names.emplace_back(s.begin(), s.end());
  }
  if (int c = agree(control, [&] { ep->insert_peers(names); })) return failed_phase(c, "set-up failed");

  // What each node shows of EFA, for the profile check.
  const std::vector<int> efa_by_rank = control.all_gather(count_efa_devices(CollectOptions{}.infiniband_dir));

  const auto shared = std::make_shared<FabricResults>(o, spec.argv, now_utc());
  FabricResults& results = *shared;
  const Schedule schedule = schedule_for_pattern(o.pattern, static_cast<int>(units.size()));
  if (rank == 0) {
    results.set_layout(size, nodes, units, per_rank, schedule);
    results.set_provider(choice, ep->facts(), ofi::libfabric_version());
    results.set_polling(polling.summary, polling.reason);
    results.set_environment(instance_type, thresholds, efa_by_rank);
    std::fputs(results.header().c_str(), stdout);
    std::fflush(stdout);
  }
  // Rank 0 adds each round's lanes under its mutex; a stop signal saves the rounds so far.
  struct Progress {
    std::mutex mutex;
    std::size_t rounds = 0;
  };
  const auto progress = std::make_shared<Progress>();
  const StopScope stop(rank_and_host(rank), [=, path = o.output, color = spec.color](const EarlyEnd& end, const nlohmann::json&) -> StopSaved {
    if (rank != 0) return {};
    std::lock_guard lock(progress->mutex);
    const Finding why = early_end_finding(end, stopped_progress(progress->rounds, "round", !path.empty()));
    nlohmann::json doc = shared->document({why}, end.exit_code);
    doc["complete"] = false;
    doc["error"] = why.message;
    if (!path.empty()) report::write_file_atomically(path, doc.dump(2) + "\n", false);
    return {std::move(doc), why, color};
  });

  ofi::LanePlan plan;
  for (std::uint64_t b : sweep_sizes(o.min_bytes, o.max_bytes, o.factor, 0)) {
    if (b <= o.latency_max) plan.latency_sizes.push_back(b);
    if (b >= o.bandwidth_min) plan.bandwidth_sizes.push_back(b);
  }
  plan.pingpong = {o.warmup, o.iters, 1, o.timeout_s};
  plan.stream = {o.bw_warmup, o.bw_iters, o.window, o.timeout_s};

  // Rank 0's clock decides whether the budget fits another round; every rank follows.
  const Budget budget(o.budget_s > 0 ? o.budget_s : default_budget_s(static_cast<int>(schedule.size())));
  if (rank == 0) results.set_budget(budget.total_s());
  // Each measurement of a lane gets an even part of its round's share of the budget: a slow link
  // ends on time with fewer samples, the decision taken by the side that times (traffic.h).
  const auto measurements = static_cast<double>(plan.latency_sizes.size() + 3 * plan.bandwidth_sizes.size());
  // Runs `rounds`, numbered from `first`, with `later` rounds expected after them, and gathers
  // their lanes to rank 0. Rounds the budget does not reach are recorded as not measured.
  double load = 0;  // the most runnable tasks per core this rank saw around its rounds
  auto run_rounds = [&](const Schedule& rounds, int first, int later) {
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      nlohmann::json mine = nlohmann::json::array();
      load = std::max(load, runnable_per_core());
      const int rounds_left = static_cast<int>(rounds.size() - r) + later;
      const double slice = budget.next_slice(control, rounds_left, std::numeric_limits<double>::infinity());
      if (slice <= 0) {
        if (rank == 0)
          for (std::size_t j = r; j < rounds.size(); ++j) results.add_not_measured(rounds[j].pairs);
        break;
      }
      plan.pingpong.max_time_s = plan.stream.max_time_s = slice / std::max(measurements, 1.0);
      const int index = first + static_cast<int>(r);
      auto lane = ofi::lane_of(rank, rounds, static_cast<int>(r), units);
      if (lane) {
        lane->round = index;
        const bool initiator = lane->rank_a == rank;
        const int peer = initiator ? lane->rank_b : lane->rank_a;
        if (rank == o.silent_rank)
          for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // --inject silent: never answer
        plan.tag_base = static_cast<std::uint64_t>(index) * 100000;
        try {
          const ofi::LaneSamples s = ofi::run_lane(*ep, peer, initiator, plan);
          mine.push_back(lane_samples_json(*lane, initiator, s));
        } catch (const ofi::PeerTimeout& e) {
          const Finding f{"FABRIC_PEER_TIMEOUT", report::Tag::Fail, report::Priority::P0,
                          fmt::format("rank {} (host {}) got no answer from rank {} (host {}) in round {}: {}; that "
                                      "process is hung, dead or unreachable over {}",
                                      rank, host, e.peer, hosts[static_cast<std::size_t>(e.peer)], index, e.phase,
                                      ep->facts().provider),
                          report::ref::kTimeoutHang, report::Subject::rank(e.peer, hosts[static_cast<std::size_t>(e.peer)])};
          abort_run(control, report::render_finding(f, false));
        } catch (const std::exception& e) {
          abort_run(control, fmt::format("collbench: error: round {}, with rank {} (host {}): {}", index, peer,
                                      hosts[static_cast<std::size_t>(peer)], e.what()));
        }
      }
      load = std::max(load, runnable_per_core());
      // Each round reaches rank 0 as it ends, so a stopped run keeps it.
      const std::vector<std::string> parts = control.gather_strings(mine.dump());
      if (rank == 0) {
        std::lock_guard lock(progress->mutex);
        for (const auto& p : parts) results.add_lanes(nlohmann::json::parse(p));
        ++progress->rounds;
      }
      control.barrier();
    }
  };

  const EfaCounterWatch efa_watch(control, CounterReadOptions::from_env());
  run_rounds(schedule, 0, 2);
  // Confirmation: units whose pairs disagree, or that look slow, measured again against the
  // healthiest units, and doubtful links again, before any verdict.
  Schedule confirm;
  if (rank == 0) {
    std::lock_guard lock(progress->mutex);
    const std::vector<report::Attribution> first = results.first_verdicts();
    std::vector<const report::Attribution*> ptrs;
    for (const auto& a : first) ptrs.push_back(&a);
    confirm = confirmation_schedule(ptrs);
    results.add_confirmation(confirm);
    if (!confirm.empty()) {
      std::string text = fmt::format("# confirmation: {} round(s):", confirm.size());
      for (const auto& r : confirm)
        for (const auto& [a, b] : r.pairs) text += fmt::format(" {}<->{}", units[a].name, units[b].name);
      std::printf("%s\n", text.c_str());
      std::fflush(stdout);
    }
  }
  confirm = broadcast_schedule(confirm, control);
  run_rounds(confirm, static_cast<int>(schedule.size()), 0);
  const report::CounterReport efa = efa_watch.finish(control);
  const std::vector<double> loads = control.gather_to_root(std::span<const double>(&load, 1));
  if (rank == 0) {
    std::lock_guard lock(progress->mutex);
    results.set_load(loads);
  }

  PhaseResult out;
  if (int c = agree(control, [&] {
        if (rank != 0) return;
        std::lock_guard lock(progress->mutex);
        out.findings = results.judge();
        report::add_counter_findings(out.findings, efa, "the fabric rounds");
      }))
    return failed_phase(c, "judging the results failed");
  if (rank == 0) {
    const nlohmann::json counters = report::counters_json(efa);
    const auto document = [shared, counters](const std::vector<Finding>& f, int code) {
      nlohmann::json doc = shared->document(f, code);
      doc["counters"] = counters;
      return doc;
    };
    out.document = document;
    out.save = [document, path = o.output](const std::vector<Finding>& f, int code) {
      if (!path.empty()) report::write_file_atomically(path, document(f, code).dump(2) + "\n");
    };
  }
  ep.reset();
  out.wall_s = wall.elapsed_s();
  return out;
}

}  // namespace collbench

#endif
