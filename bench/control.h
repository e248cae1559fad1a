// The processes' side channel: decisions and results move through it between measurements, never
// during one, and never on the communicator being measured.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
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
  // Collective: a channel among the processes that passed the same color, ranked as here.
  virtual std::unique_ptr<Control> split(int color) = 0;
};

}  // namespace collbench
