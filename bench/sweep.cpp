#include "bench/sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <csignal>
#include <numeric>
#include <optional>
#include <thread>

#include "bench/clock_sync.h"
#include "bench/dtype.h"
#include "bench/host_load.h"

namespace collbench {
namespace {

constexpr int kClockSyncRounds = 8;

std::uint64_t case_seed(std::size_t index, int check) { return (index + 1) * 131 + static_cast<std::uint64_t>(check); }

void inject_at_start(const FaultInjection& f, std::size_t index, int rank) {
  if (f.rank != rank || static_cast<std::size_t>(f.at_case) != index) return;
  if (f.kind == FaultInjection::Kind::Kill) std::raise(SIGKILL);
  if (f.kind == FaultInjection::Kind::Hang)
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

using Clock = std::chrono::steady_clock;

// Every process runs the smallest batch any of them asks for (a batch is collective).
int agreed_batch(Control& control, int batch) {
  return static_cast<int>(control.min(static_cast<std::int64_t>(batch)));
}

// The untimed warm-up, paced like the timed loop; returns the seconds per call of its last batch
// (0 without warm-up), the timed loop's first estimate. The first call runs alone: it may set up
// connections, and its time says nothing of the next ones.
double paced_warmup(const RunOptions& opts, const CallShape& call, Backend& backend, Control& control,
                    Watchdog& watchdog, const std::string& what) {
  double per_iter = 0;
  for (int done = 0; done < opts.warmup;) {
    const int batch = agreed_batch(control, done == 0 ? 1 : paced_batch(opts.warmup - done, per_iter, opts.timeout_s));
    watchdog.arm(what + ", warm-up", opts.timeout_s);
    const Clock::time_point t0 = Clock::now();
    backend.run(call, batch, nullptr, nullptr);
    per_iter = std::chrono::duration<double>(Clock::now() - t0).count() / batch;
    done += batch;
  }
  return per_iter;
}

// Times batches until the stopping rule (decided on rank 0) says stop. Each batch runs under the
// watchdog afresh and is cut to fit in it.
StopReason timed_loop(const RunOptions& opts, const CallShape& call, Backend& backend, Control& control,
                      Watchdog& watchdog, const std::string& what, double per_iter_s, LocalSamples& samples,
                      std::vector<double>& starts) {
  // A sample is the mean of `unit` calls (-G): the unit's time is what batches and clocks count.
  const double unit = backend.calls_per_sample(call);
  double elapsed = 0;
  for (;;) {
    const int done = samples.empty() ? 0 : static_cast<int>(samples[0].size());
    if (done > 0) per_iter_s = elapsed / done;
    // The batch depends on rank 0's clock, so rank 0's choice is everyone's: ranks running
    // different counts would wait on each other forever.
    int wanted = next_batch(opts.iters, done, elapsed);
    if (opts.iters.adaptive && control.rank() != 0) wanted = INT32_MAX;
    const int batch = wanted > 0 ? agreed_batch(control, paced_batch(wanted, per_iter_s, opts.timeout_s)) : 0;
    if (batch > 0) {
      watchdog.arm(what + ", timed iterations", opts.timeout_s);
      backend.run(call, batch, &samples, &starts);
      elapsed += unit * std::accumulate(samples[0].begin() + done, samples[0].end(), 0.0);
    }
    const StopDecision d = decide_stop(opts.iters, samples.empty() ? std::span<const double>{} : samples[0], elapsed);
    if (!opts.iters.adaptive) {
      if (batch < wanted) continue;  // a fixed count measured in pieces
      return StopReason::Fixed;
    }
    if (control.broadcast_flag(d.stop)) return d.reason;
  }
}

std::optional<std::int64_t> check_pass(const RunOptions& opts, const CallShape& call, std::size_t index,
                                       Backend& backend, Control& control) {
  if (opts.check_iters <= 0 || !backend.verifiable(call)) return std::nullopt;
  std::int64_t wrong = 0;
  for (int c = 0; c < opts.check_iters; ++c) {
    backend.fill(call, case_seed(index, c));
    control.barrier();
    backend.run_once(call);
    if (opts.inject.kind == FaultInjection::Kind::Corrupt && opts.inject.rank == control.rank() &&
        static_cast<std::size_t>(opts.inject.at_case) == index)
      backend.corrupt_result(call);
    wrong += backend.count_wrong(call, case_seed(index, c));
  }
  return wrong;  // this process's ranks only; run_sweep gathers them
}

}  // namespace

std::string describe_case(const CaseRow& row, Placement p) {
  return fmt::format("{} {} {} {} B", collective_info(row.coll).name, dtype_info(row.dtype).name,
                     p == Placement::InPlace ? "in-place" : "out-of-place", row.bytes);
}

std::vector<SkippedSizes> run_sweep(const Plan& plan, const RunOptions& opts, Backend& backend, Control& control,
                                    Watchdog& watchdog, const CaseSink& sink) {
  backend.reserve(plan.max_send_bytes, plan.max_recv_bytes);
  std::vector<SkippedSizes> skipped;
  std::optional<Coll> op;
  Clock::time_point op_start;
  std::size_t index = 0;
  std::optional<std::vector<std::string>> clock_domains;  // gathered under the first case's watchdog
  for (const CaseRow& row : plan.rows) {
    if (row.coll != op) op = row.coll, op_start = Clock::now();
    // Rank 0's clock decides, so every rank skips the same cases.
    if (opts.op_budget_s > 0 &&
        control.broadcast_flag(std::chrono::duration<double>(Clock::now() - op_start).count() > opts.op_budget_s)) {
      if (skipped.empty() || skipped.back().coll != row.coll) skipped.push_back({row.coll, row.bytes, 0});
      skipped.back().cases += static_cast<int>(plan.placements.size());
      index += plan.placements.size();
      continue;
    }
    for (Placement placement : plan.placements) {
      const CallShape call = row.call(placement);
      const std::string what = describe_case(row, placement);
      // The phase notes tell a rank stuck on its own from ranks waiting for it.
      watchdog.arm(what + ", setting up", opts.timeout_s);
      inject_at_start(opts.inject, index, control.rank());
      backend.fill(call, case_seed(index, 0));

      watchdog.note(what + ", waiting for every rank to start");
      control.barrier();
      const double per_iter = paced_warmup(opts, call, backend, control, watchdog, what);

      // Offsets measured per case: hosts' clocks drift apart by parts per million, which over a long
      // sweep is more than the lateness worth telling. Processes on one machine need no measuring.
      // A backend that records no arrivals needs no offsets (the nccl backend times on the GPU).
      watchdog.note(what + ", clock sync");
      if (!clock_domains)
        clock_domains = control.size() > 1 && backend.records_arrivals() ? control.all_gather_strings(machine_id())
                                                                          : std::vector<std::string>{};
      const ClockSync clocks =
          clock_domains->empty() ? ClockSync{} : sync_clocks(control, *clock_domains, kClockSyncRounds);
      watchdog.note(what + ", timed iterations");
      control.barrier();
      LocalSamples samples(static_cast<std::size_t>(backend.local_ranks()));
      std::vector<double> starts;
      CpuWaitMeter cpu_wait;
      cpu_wait.start();
      const StopReason stop = timed_loop(opts, call, backend, control, watchdog, what, per_iter, samples, starts);
      const double wait_share = cpu_wait.stop();

      watchdog.arm(what + ", result check", opts.timeout_s);
      auto wrong = check_pass(opts, call, index, backend, control);

      // Gather [process][local rank][iteration] on rank 0; every process ran the same count.
      std::vector<double> flat;
      for (const auto& s : samples) flat.insert(flat.end(), s.begin(), s.end());
      const std::vector<double> all = control.gather_to_root(flat);
      // Every process ran the same backend, so either all recorded starts or none did.
      const std::vector<double> all_starts = starts.empty() ? std::vector<double>{} : control.gather_to_root(starts);
      // Per process: its wrong count (-1: not checkable) and its CPU-wait share, in one gather.
      const std::vector<double> per_process =
          control.gather_to_root(std::vector<double>{wrong ? double(*wrong) : -1.0, wait_share});
      watchdog.disarm();

      if (control.rank() == 0) {
        CaseMeasurement m{index, &row, placement, {}, {}, std::nullopt, stop, -1, {}, {}};
        for (std::size_t p = 0; p + 1 < per_process.size(); p += 2) {
          const double w = per_process[p];
          m.cpu_wait_share = std::max(m.cpu_wait_share, per_process[p + 1]);
          m.wrong_by_process.push_back(w < 0 ? std::nullopt : std::optional<std::int64_t>(std::int64_t(w)));
          if (w >= 0) m.wrong = m.wrong.value_or(0) + std::int64_t(w);
        }
        const std::size_t iters = samples.empty() ? 0 : samples[0].size();
        const std::size_t ranks = iters == 0 ? 0 : all.size() / iters;
        m.samples_s.resize(ranks);
        for (std::size_t r = 0; r < ranks; ++r)
          m.samples_s[r].assign(all.begin() + static_cast<std::ptrdiff_t>(r * iters),
                                all.begin() + static_cast<std::ptrdiff_t>((r + 1) * iters));
        if (!all_starts.empty() && iters > 0 && !clocks.offset_s.empty()) {
          const std::size_t processes = all_starts.size() / iters;
          m.arrival_s.resize(processes);
          for (std::size_t p = 0; p < processes; ++p)
            for (std::size_t i = 0; i < iters; ++i) m.arrival_s[p].push_back(all_starts[p * iters + i] - clocks.offset_s[p]);
          m.clock_error_s = clocks.error_s;
        }  // one process: nobody to arrive before or after it
        sink(m);
      }
      ++index;
    }
  }
  return skipped;
}

}  // namespace collbench
