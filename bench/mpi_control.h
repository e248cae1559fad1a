#pragma once

#include <mpi.h>

#include "bench/control.h"

namespace collbench {

// Control over a private duplicate of MPI_COMM_WORLD, or a split of one.
class MpiControl final : public Control {
 public:
  MpiControl();
  ~MpiControl() override;
  MpiControl(const MpiControl&) = delete;
  MpiControl& operator=(const MpiControl&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override;
  bool broadcast_flag(bool value) override;
  std::vector<double> gather_to_root(std::span<const double> mine) override;
  std::int64_t min(std::int64_t value) override;
  void broadcast(std::span<int> values) override;
  double broadcast(double value) override;
  std::string broadcast(const std::string& value) override;
  std::vector<std::string> gather_strings(const std::string& mine) override;
  std::vector<std::string> all_gather_strings(const std::string& mine) override;
  std::vector<int> all_gather(int mine) override;
  void send(int to, std::span<const double> values) override;
  void receive(int from, std::span<double> values) override;
  [[noreturn]] void abort(int code) override;
  std::unique_ptr<Control> split(int color) override;

 private:
  explicit MpiControl(MPI_Comm owned);

  int rank_ = 0;  // set by dup_world() when comm_ is initialised, so declared first
  int size_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace collbench
