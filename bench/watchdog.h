// A per-process timer that ends a case stuck longer than --timeout. It runs on its own thread and
// calls no MPI: it hands what it knows to the on_expire callback, which reports and exits.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace collbench {

class Watchdog {
 public:
  using Callback = std::function<void(const std::string& what, double limit_s)>;

  explicit Watchdog(Callback on_expire);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts (or restarts) the clock for `what`; disarm() stops it.
  void arm(std::string what, double limit_s);
  // Updates the description without restarting the clock (e.g. the phase within a case).
  void note(std::string what);
  void disarm();

 private:
  void loop();

  Callback on_expire_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool quit_ = false;
  std::string what_;
  double limit_s_ = 0;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

}  // namespace collbench
