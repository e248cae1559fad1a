// The control channel of a command that runs as one process (analyze, compare, thresholds derive):
// every collective is the identity, so those commands end through the same steps as the measuring ones.
#pragma once

#include <cstdlib>
#include <stdexcept>

#include "bench/control.h"

namespace collbench {

class SoloControl final : public Control {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void barrier() override {}
  bool broadcast_flag(bool value) override { return value; }
  std::vector<double> gather_to_root(std::span<const double> mine) override { return {mine.begin(), mine.end()}; }
  std::int64_t min(std::int64_t value) override { return value; }
  void broadcast(std::span<int>) override {}
  double broadcast(double value) override { return value; }
  std::string broadcast(const std::string& value) override { return value; }
  std::vector<std::string> gather_strings(const std::string& mine) override { return {mine}; }
  std::vector<std::string> all_gather_strings(const std::string& mine) override { return {mine}; }
  std::vector<int> all_gather(int mine) override { return {mine}; }
  // One process has no peer to talk to.
  void send(int, std::span<const double>) override { throw std::logic_error("SoloControl::send: no peer"); }
  void receive(int, std::span<double>) override { throw std::logic_error("SoloControl::receive: no peer"); }
  [[noreturn]] void abort(int code) override { std::exit(code); }
  std::unique_ptr<Control> split(int) override { return std::make_unique<SoloControl>(); }
};

}  // namespace collbench
