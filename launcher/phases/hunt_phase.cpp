#include "launcher/phases/hunt_phase.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "bench/backend_factory.h"
#include "bench/mpi_check.h"
#include "bench/schedules.h"
#include "launcher/job/agree.h"
#include "launcher/phases/confirmation.h"
#include "launcher/phases/phase_frame.h"
#include "launcher/job/budget.h"
#include "launcher/phases/hunt_rounds.h"
#include "launcher/verdicts/hunt_verdicts.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/job/world.h"
#include "reports/pairs/attribution.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/hunt/hunt_json.h"
#include "reports/core/journal.h"
#include "reports/core/json_report.h"
#include "reports/core/stats.h"
#include "reports/core/references.h"
#include "reports/core/summary.h"
#include "reports/core/text_table.h"
#include "reports/counters/counter_verdicts.h"

namespace collbench {
namespace {

using report::Finding;

constexpr double kProbeTarget_s = 0.005;  // a healthy pair's iteration: milliseconds, well above launch overheads
// Below 1 MiB a pair measures latency more than bandwidth, and a bandwidth fault hides in it.
constexpr std::uint64_t kProbeMinBytes = 1ull << 20;
constexpr std::uint64_t kProbeMaxBytes = 64ull << 20;
constexpr double kLongRound_s = 2.0;

// Rank 0's results, kept for the document written when the command ends.
struct HuntState : EarlyRecord {
  std::mutex mutex;  // the measuring thread adds to the record under it; a stop signal reads it
  report::HuntRecord record;
  report::Attribution attribution;
  std::optional<report::Journal> journal;
  nlohmann::json counters;  // the EFA counters' deltas (efa_counters.h), once read after the rounds

  nlohmann::json document(const std::vector<Finding>& findings, int exit_code) const {
    nlohmann::json doc = report::hunt_document(record, attribution, findings, exit_code);
    if (!counters.is_null()) doc["counters"] = counters;
    return doc;
  }
  // EarlyRecord: the rounds so far, attributed as far as they go.
  std::string progress() override {
    std::lock_guard lock(mutex);
    return stopped_progress(record.rounds.size(), "round", journal.has_value());
  }
  nlohmann::json document_so_far(const Finding& why, int exit_code) override {
    std::lock_guard lock(mutex);
    const auto n = static_cast<int>(record.header.world.nodes.size());
    return report::hunt_document(record, report::attribute(record.samples, n), {why}, exit_code);
  }
  void save_early(const nlohmann::json& doc) override {
    std::lock_guard lock(mutex);
    if (journal) journal->finish(doc, false);
  }
};

// Every process's view of the nodes: rank 0 knows the layout, the others learn their node's index.
struct NodeLayout {
  int nodes = 0;
  int my_node = 0;
  bool alike = true;  // every node has the same number of ranks, at least two: the node phase can run
};

NodeLayout broadcast_layout(Control& control, const report::WorldInfo& world, const Backend& backend) {
  NodeLayout out;
  int n = static_cast<int>(world.nodes.size());
  control.broadcast(std::span<int>(&n, 1));
  out.nodes = n;
  if (n < 2) return out;
  std::vector<int> node_of_rank(static_cast<std::size_t>(backend.world_ranks()), 0);
  int alike = 1;
  if (control.rank() == 0) {
    for (int i = 0; i < n; ++i) {
      for (int r : world.nodes[i].ranks) node_of_rank[static_cast<std::size_t>(r)] = i;
      alike &= world.nodes[i].ranks.size() == world.nodes[0].ranks.size() && world.nodes[i].ranks.size() >= 2;
    }
  }
  control.broadcast(std::span<int>(node_of_rank));
  control.broadcast(std::span<int>(&alike, 1));
  out.my_node = node_of_rank[static_cast<std::size_t>(backend.first_rank())];
  out.alike = alike != 0;
  return out;
}

// The rounds of one hunt: each timed on rank 0, printed and journaled, within the budget.
class Rounds {
 public:
  Rounds(PhaseFrame& frame, const HuntContext& ctx, HuntState& state, const Budget& budget, double long_round_s)
      : frame_(frame), ctx_(ctx), state_(state), record_(state.record), budget_(budget), long_round_s_(long_round_s) {
    for (const auto& node : ctx.info.nodes) names_.push_back(node.name);
  }
  const std::vector<std::string>& names() const { return names_; }

  // Pair rounds of `s` (`phase`: "pairs" or "confirm"); those the budget cannot fit are not measured.
  void pairs(const std::string& phase, const Schedule& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double slice = next_slice(static_cast<int>(s.size() - i));
      if (slice <= 0) {
        std::lock_guard lock(state_.mutex);
        for (std::size_t j = i; j < s.size(); ++j)
          record_.not_measured.insert(record_.not_measured.end(), s[j].pairs.begin(), s[j].pairs.end());
        return;
      }
      timed(phase, s[i].pairs, [&](int index) {
        PairRound pr = run_pair_round(ctx_, s[i], index, record_.plan.bytes, slice, phase == "confirm");
        std::lock_guard lock(state_.mutex);
        for (auto& sample : pr.samples) record_.samples.push_back(std::move(sample));
        note_load(pr.runnable_per_core);
      });
    }
  }

  // A node's own path is judged on one short measurement: anything not healthy is measured again
  // and must be slow both times, on CPUs that were not oversubscribed, to be named.
  void nodes(int ahead) {
    const double slice = next_slice(ahead);
    if (slice <= 0) {
      std::lock_guard lock(state_.mutex);
      record_.node_phase_skipped = true;
    } else {
      node_run(slice);
    }
    int again = 0;
    if (frame_.rank() == 0 && !record_.node_phase.empty()) {
      std::lock_guard lock(state_.mutex);
      record_.node_judgement = report::judge_groups(record_.node_phase);
      for (const auto& g : record_.node_judgement.groups) again |= g.kind != report::GroupVerdict::Kind::Healthy;
    }
    frame_.control().broadcast(std::span<int>(&again, 1));
    const double again_slice = again ? next_slice(ahead) : 0;
    if (again_slice > 0) {
      node_run(again_slice);
      if (frame_.rank() == 0) {
        std::lock_guard lock(state_.mutex);
        record_.node_judgement = report::combine_runs(record_.node_judgement, report::judge_groups(record_.node_phase));
      }
    }
    if (frame_.rank() == 0) {
      std::lock_guard lock(state_.mutex);
      report::excuse_busy_hosts(record_.node_judgement, record_.runnable_per_core);
    }
  }

  // Nodes in doubt or accused measured again against the healthiest, and doubtful links again.
  void confirm() {
    Schedule confirm;
    if (frame_.rank() == 0) {
      const report::Attribution first = report::attribute(record_.samples, static_cast<int>(names_.size()));
      confirm = confirmation_schedule({&first});
    }
    confirm = broadcast_schedule(confirm, frame_.control());
    if (frame_.rank() == 0 && !confirm.empty()) {
      std::printf("# confirmation: %d round(s): ", static_cast<int>(confirm.size()));
      for (const auto& r : confirm) std::printf("%s  ", pairs_text(r.pairs, ctx_.info.nodes).c_str());
      std::printf("\n");
    }
    pairs("confirm", confirm);
  }

 private:
  // The slice for the next of `rounds_left` rounds, agreed; 0 when the budget cannot fit it.
  double next_slice(int rounds_left) { return budget_.next_slice(frame_.control(), rounds_left, long_round_s_); }

  void node_run(double slice) {
    timed("node", {}, [&](int) {
      NodePhase r = run_node_phase(ctx_, record_.plan.bytes, slice);
      std::lock_guard lock(state_.mutex);
      record_.node_phase = std::move(r.scores);
      note_load(r.runnable_per_core);
    });
  }

  // Per node, the busiest its CPUs were over the whole hunt.
  void note_load(const std::vector<double>& load) {
    record_.runnable_per_core.resize(std::max(record_.runnable_per_core.size(), load.size()), 0.0);
    for (std::size_t i = 0; i < load.size(); ++i)
      record_.runnable_per_core[i] = std::max(record_.runnable_per_core[i], load[i]);
  }

  // Times one round on rank 0, then prints and journals it.
  template <class Body>
  void timed(const std::string& phase, const std::vector<std::pair<int, int>>& pairs, const Body& body) {
    report::HuntRound round{phase, static_cast<int>(record_.rounds.size()), 0, pairs};
    const double start = budget_.elapsed_s();
    body(round.index);
    round.wall_s = budget_.elapsed_s() - start;
    if (frame_.rank() != 0) return;
    std::lock_guard lock(state_.mutex);
    record_.rounds.push_back(round);
    std::string line = fmt::format("# round {} ({}): {:.2f} s", round.index, phase, round.wall_s);
    for (const auto& s : record_.samples)
      if (s.round == round.index)
        line += fmt::format("  {}<->{} {:.3g} GB/s ({})", names_[s.a], names_[s.b], report::median(s.rates),
                            s.rates.size());
    if (phase == "node")
      for (const auto& g : record_.node_phase) line += fmt::format("  {} {:.3g} GB/s ({})", g.label, g.busbw_gbs, g.samples);
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (state_.journal) state_.journal->append_line({{"round", report::to_json(round, record_.samples, names_)}});
  }

  PhaseFrame& frame_;
  const HuntContext& ctx_;
  HuntState& state_;
  report::HuntRecord& record_;
  const Budget& budget_;
  const double long_round_s_;
  std::vector<std::string> names_;
};

// The hunt's options as the backend sees them: one op, out of place, at the largest size the probe
// may choose (for any check made at set-up).
RunOptions hunt_run_options(const HuntPhaseSpec& spec) {
  RunOptions opts = spec.run;
  opts.min_bytes = opts.max_bytes = spec.hunt.bytes > 0 ? spec.hunt.bytes : kProbeMaxBytes;
  opts.placements = {Placement::OutOfPlace};
  opts.ops = {opts.ops.front()};
  return opts;
}

void fill_header(report::HuntRecord& record, const HuntPhaseSpec& spec, const RunOptions& opts) {
  record.header.tool_version = COLLBENCH_VERSION;
  record.header.started_at = now_utc();
  record.header.argv = spec.argv;
  record.header.rank_reduce = RankReduce::Mean;
  record.plan.pattern = spec.hunt.pattern;
  record.plan.op = collective_info(opts.ops.front()).name;
}

// The message size (probed unless -b gave it) and what the plan promises; the round length that
// holds all the samples a verdict needs, however slow the slowest pair.
double plan_sizes(report::HuntRecord& record, const HuntContext& ctx, const HuntOptions& hunt, const Round& first) {
  const RunOptions& opts = ctx.opts;
  record.plan.max_iters = opts.iters.fixed;
  const std::uint64_t lo = hunt.bytes > 0 ? hunt.bytes : kProbeMinBytes;
  const std::uint64_t hi = hunt.bytes > 0 ? hunt.bytes : kProbeMaxBytes;
  const SizeChoice c = choose_size(ctx, first, kProbeTarget_s, lo, hi);
  record.plan.bytes = c.bytes;
  record.plan.bytes_probed = hunt.bytes == 0;
  record.plan.probe_iteration_s = c.iteration_s;
  record.header.sweep = {c.bytes, c.bytes, 2, 0, opts.warmup, std::to_string(opts.iters.fixed), opts.check_iters};
  const int per_round = opts.warmup + opts.iters.fixed;
  record.plan.estimate_s = record.plan.planned_rounds * per_round * record.plan.probe_iteration_s;
  return std::max(kLongRound_s, 100 * record.plan.probe_iteration_s);
}

PhaseResult judged(HuntState& state, const std::shared_ptr<HuntState>& shared, const std::vector<std::string>& names,
                   const report::CounterReport& efa) {
  PhaseResult out;
  HuntVerdict v = judge_hunt(state.record, state.record.header.world, names);
  out.findings = std::move(v.findings);
  report::add_counter_findings(out.findings, efa, "the hunt");
  state.attribution = std::move(v.attribution);
  state.counters = report::counters_json(efa);
  std::fflush(stdout);
  out.document = [shared](const std::vector<Finding>& f, int code) { return shared->document(f, code); };
  out.save = [shared](const std::vector<Finding>& f, int code) {
    if (shared->journal) shared->journal->finish(shared->document(f, code));
  };
  return out;
}

}  // namespace

PhaseResult hunt_phase(Control& control, const HuntPhaseSpec& spec) {
  const RunOptions opts = hunt_run_options(spec);
  const int rank = control.rank();
  auto shared = std::make_shared<HuntState>();
  report::HuntRecord& record = shared->record;
  PhaseFrame frame(control, opts.timeout_s, spec.color, "hunt ");
  BackendChoice choice;
  if (int code = agree(control, [&] { choice = make_backend(opts, control, report_at_once(rank), &frame.watchdog()); }))
    return frame.failed_setup(code);
  frame.quiet();
  record.header.world = describe_world(control, *choice.backend, choice.reason);
  const NodeLayout layout = broadcast_layout(control, record.header.world, *choice.backend);
  if (layout.nodes < 2) return skipped_phase(fmt::format("hunt needs at least 2 nodes; this run has {}", layout.nodes));
  const bool node_phase = spec.hunt.pattern == "auto" && layout.alike;
  fill_header(record, spec, opts);
  if (int code = agree(control, [&] {
        if (rank != 0 || opts.json_path.empty()) return;
        nlohmann::json first = {{"schema", report::kHuntPartialSchema}};
        first.update(report::to_json(record.header));
        open_journal(shared->journal, opts.json_path, first);
      }))
    return failed_phase(code, "set-up failed");
  frame.keep(shared);
  frame.start_counters();

  const HuntContext ctx{opts, *choice.backend, control, frame.watchdog(), record.header.world, layout.my_node};
  const Schedule schedule = schedule_for_pattern(spec.hunt.pattern, layout.nodes);
  record.plan.planned_rounds = static_cast<int>(schedule.size()) + (node_phase ? 1 : 0);
  // Rank 0's clock and decisions rule; every rank follows them.
  const Budget budget = Budget::for_rounds(spec.hunt.budget_s, record.plan.planned_rounds);
  record.plan.budget_s = budget.total_s();
  const double long_round_s = plan_sizes(record, ctx, spec.hunt, schedule.front());
  if (rank == 0) {
    std::fputs(hunt_plan_text(record.plan, schedule, node_phase, record.header.world).c_str(), stdout);
    std::fflush(stdout);
  }
  Rounds rounds(frame, ctx, *shared, budget, long_round_s);
  // Rounds still ahead, for the share of each: node phase, pair rounds, two for confirmation.
  if (node_phase) rounds.nodes(record.plan.planned_rounds + 2);
  rounds.pairs("pairs", schedule);
  rounds.confirm();
  const report::CounterReport efa = frame.finish_counters();
  // Communicator teardown waits on the peers (ncclCommFinalize): a step under the watchdog too.
  frame.step("teardown: releasing the backend");
  choice.backend.reset();
  frame.quiet();
  if (rank != 0) return frame.ended({});
  return frame.ended(judged(*shared, shared, rounds.names(), efa));
}

}  // namespace collbench
