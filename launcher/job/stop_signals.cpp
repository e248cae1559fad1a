#include "launcher/job/stop_signals.h"

#include <fmt/format.h>
#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "reports/core/summary.h"

namespace collbench {
namespace {

// A save that blocks (stdout on a full pipe, a stuck file system) must not keep the process alive.
constexpr auto kSaveLimit = std::chrono::seconds(3);

struct OpenScope {
  int id;
  std::string who;
  StopScope::Save save;
};

// The signal disposition is per process, so the scopes are too.
std::mutex scopes_mutex;
std::vector<OpenScope> scopes;
int next_id = 0;
bool ending = false;  // under scopes_mutex: an early end has begun; it ends the process

// Rank 0's stdout when a command ends early: `why` and the summary, after whatever was printed.
void print_ending(const report::Finding& why, bool color) {
  std::printf("%s\n%s", report::render_finding(why, color).c_str(), report::render_summary({why}, color).c_str());
  std::fflush(stdout);
}

[[noreturn]] void wait_for_the_end() {
  for (;;) pause();
}

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&set, s);
  return set;
}

void on_signal(int signo) {
  {
    std::lock_guard lock(scopes_mutex);
    if (scopes.empty())
      std::fprintf(stderr, "collbench: stopped by %s, outside any measurement\n", signal_name(signo).c_str());
    else
      std::fprintf(stderr, "collbench: %s: stopped by %s\n", scopes.back().who.c_str(), signal_name(signo).c_str());
    std::fflush(stderr);
  }
  end_early_now({signo, std::nullopt, signal_exit_code(signo)});
}

}  // namespace

void start_stop_signal_thread() {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int signo = 0;
    while (sigwait(&set, &signo) != 0) {
    }
    on_signal(signo);
  }).detach();
}

void end_early_now(const EarlyEnd& end) {
  const int code = end.exit_code;
  std::thread([code] {
    std::this_thread::sleep_for(kSaveLimit);
    std::fputs("collbench: saving what was measured took too long; leaving without it\n", stderr);
    _exit(code);
  }).detach();
  std::vector<OpenScope> open;
  {
    std::lock_guard lock(scopes_mutex);
    if (ending) wait_for_the_end();  // a hang and a signal at once: the first one ends the process
    ending = true;
    open = scopes;
  }
  nlohmann::json inner;
  std::optional<StopSaved> innermost;
  for (auto it = open.rbegin(); it != open.rend(); ++it) {
    try {
      StopSaved saved = it->save(end, inner);
      inner = std::move(saved.document);
      if (!innermost) innermost = std::move(saved);
    } catch (const std::exception& e) {
      inner = nullptr;
      std::fprintf(stderr, "collbench: saving what was measured: %s\n", e.what());
    }
  }
  if (innermost && innermost->why) print_ending(*innermost->why, innermost->color);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(code);
}

StopScope::StopScope(std::string who, Save save) {
  std::lock_guard lock(scopes_mutex);
  id_ = next_id++;
  scopes.push_back({id_, std::move(who), std::move(save)});
}

StopScope::~StopScope() {
  std::unique_lock lock(scopes_mutex);
  // The save may use what this scope's owner is about to destroy: leave that to the exit.
  if (ending) {
    lock.unlock();
    wait_for_the_end();
  }
  std::erase_if(scopes, [this](const OpenScope& s) { return s.id == id_; });
}

std::string signal_name(int signo) {
  if (const char* abbrev = sigabbrev_np(signo)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(signo);
}

int signal_exit_code(int signo) { return 128 + signo; }

report::Finding early_end_finding(const EarlyEnd& end, const std::string& progress) {
  if (end.why) return *end.why;
  return {"STOPPED_BY_SIGNAL", report::Tag::Warn, report::Priority::P1,
          fmt::format("stopped by {} {}", signal_name(end.signo), progress), "", report::Subject::world()};
}

std::string stopped_progress(std::size_t done, const char* unit, bool saved) {
  if (done == 0) return fmt::format("before the first {} was measured", unit);
  return fmt::format("after {} {}{}{}", done, unit, done == 1 ? "" : "s",
                     saved ? "; they are saved with \"complete\": false" : "");
}

}  // namespace collbench
