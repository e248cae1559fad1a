#include "bench/watchdog.h"

namespace collbench {

Watchdog::Watchdog(Callback on_expire) : on_expire_(std::move(on_expire)), thread_([this] { loop(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(std::string what, double limit_s) {
  {
    std::lock_guard lock(mutex_);
    armed_ = true;
    what_ = std::move(what);
    limit_s_ = limit_s;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit_s));
  }
  cv_.notify_all();
}

void Watchdog::note(std::string what) {
  std::lock_guard lock(mutex_);
  what_ = std::move(what);
}

void Watchdog::disarm() {
  {
    std::lock_guard lock(mutex_);
    armed_ = false;
  }
  cv_.notify_all();
}

void Watchdog::loop() {
  std::unique_lock lock(mutex_);
  while (!quit_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    if (cv_.wait_until(lock, deadline_) == std::cv_status::timeout && armed_ && !quit_ &&
        std::chrono::steady_clock::now() >= deadline_) {
      armed_ = false;
      const std::string what = what_;
      const double limit = limit_s_;
      lock.unlock();
      on_expire_(what, limit);  // normally does not return
      lock.lock();
    }
  }
}

}  // namespace collbench
