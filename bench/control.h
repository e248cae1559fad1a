// The processes' side channel: decisions and results move through it between measurements, never
// during one, and never on the communicator being measured.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace collbench {

class Control {
 public:
  virtual ~Control() = default;
  virtual int rank() const = 0;  // process rank
  virtual int size() const = 0;  // process count
  virtual void barrier() = 0;
  // Rank 0's value, on every rank.
  virtual bool broadcast_flag(bool value) = 0;
  // Every process's equally sized block, concatenated in rank order on rank 0 (empty elsewhere).
  virtual std::vector<double> gather_to_root(std::span<const double> mine) = 0;
  virtual std::int64_t min(std::int64_t value) = 0;
  // Rank 0's values, on every rank; `values` has the same size everywhere.
  virtual void broadcast(std::span<int> values) = 0;
  virtual double broadcast(double value) = 0;
  virtual std::string broadcast(const std::string& value) = 0;  // any length
  // Every process's string, in rank order: on rank 0 only (empty elsewhere), or on every rank.
  virtual std::vector<std::string> gather_strings(const std::string& mine) = 0;
  virtual std::vector<std::string> all_gather_strings(const std::string& mine) = 0;
  virtual std::vector<int> all_gather(int mine) = 0;
  // Between two processes only, as the clock sync's ping-pong needs (bench/clock_sync.h).
  virtual void send(int to, std::span<const double> values) = 0;
  virtual void receive(int from, std::span<double> values) = 0;
  // Ends every process of the job with `code`: for a failure that leaves peers inside a collective.
  [[noreturn]] virtual void abort(int code) = 0;
  // Collective: a channel among the processes that passed the same color, ranked as here.
  virtual std::unique_ptr<Control> split(int color) = 0;
};

}  // namespace collbench
