#include "launcher/phases/phase_frame.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "bench/errors.h"
#include "launcher/job/hang_report.h"
#include "launcher/job/agree.h"
#include "reports/core/findings.h"

namespace collbench {

void mark_incomplete(nlohmann::json& doc, const report::Finding& why) {
  doc["complete"] = false;
  doc["error"] = why.message;
}

PhaseFrame::PhaseFrame(Control& control, double timeout_s, bool color, std::string hang_prefix)
    : control_(control),
      rank_(control.rank()),
      timeout_s_(timeout_s),
      color_(color),
      hang_prefix_(std::move(hang_prefix)),
      watchdog_([this](const std::string& what, double limit) { on_hang(what, limit); }),
      stop_(rank_and_host(rank_), [this](const EarlyEnd& end, const nlohmann::json&) { return save(end); }) {}

// Each process names its own step on stderr; rank 0 asks the others where they are, names the ones
// that are not where the rest wait, and saves through every open scope (preflight's too).
void PhaseFrame::on_hang(const std::string& what, double limit_s) {
  const report::Finding hang = hang_finding(rank_, hang_prefix_ + what, limit_s, hang_suspects(rank_, what));
  std::fprintf(stderr, "%s\n", report::render_finding(hang, false).c_str());
  if (rank_ == 0) end_early_now({0, hang, kExitCouldNotRun});
  std::this_thread::sleep_for(std::chrono::duration<double>(kHangReportWait_s));
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(kExitCouldNotRun);
}

StopSaved PhaseFrame::save(const EarlyEnd& end) {
  if (rank_ != 0) return {};
  std::shared_ptr<EarlyRecord> record;
  {
    std::lock_guard lock(mutex_);
    record = record_;
  }
  if (!record) return {nullptr, early_end_finding(end, "during set-up"), color_};
  const report::Finding why = early_end_finding(end, record->progress());
  nlohmann::json doc = record->document_so_far(why, end.exit_code);
  mark_incomplete(doc, why);
  record->save_early(doc);
  return {std::move(doc), why, color_};
}

void PhaseFrame::keep(std::shared_ptr<EarlyRecord> record) {
  std::lock_guard lock(mutex_);
  record_ = std::move(record);
}

PhaseResult PhaseFrame::failed_setup(int code) {
  step("teardown after a failed set-up");
  return failed_phase(code, "set-up failed");
}

void PhaseFrame::start_counters() {
  // Collectives, like a case: a peer that stops here is a hang like any other.
  step("reading the EFA counters");
  counters_.emplace(control_, CounterReadOptions::from_env());
  quiet();
}

report::CounterReport PhaseFrame::finish_counters() {
  step("reading the EFA counters");
  report::CounterReport r = counters_ ? counters_->finish(control_) : report::CounterReport{};
  quiet();
  return r;
}

PhaseResult PhaseFrame::ended(PhaseResult out) const {
  out.wall_s = elapsed_s();
  return out;
}

}  // namespace collbench
