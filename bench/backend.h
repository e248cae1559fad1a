// The one interface every backend implements. A backend moves data and times it; it never prints.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/collectives.h"
#include "bench/errors.h"
#include "bench/options.h"
#include "kernels/pattern.h"

namespace collbench {

// One collective call as the backend sees it.
struct CallShape {
  Coll coll = Coll::AllReduce;
  DType dtype = DType::Float;
  RedOp redop = RedOp::Sum;
  int root = 0;
  CollCounts counts;
  Placement placement = Placement::OutOfPlace;
};

struct DeviceDesc {
  int device = -1;      // CUDA ordinal, -1 for host memory
  std::string bus_id;   // PCI bus id, or "cpu"
  std::string name;     // "NVIDIA H100 80GB HBM3", "host memory"
};

// Samples of one timed loop: seconds per iteration, one vector per rank driven by this process.
using LocalSamples = std::vector<std::vector<double>>;

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;
  virtual int world_ranks() const = 0;  // ranks taking part in each collective
  virtual int local_ranks() const = 0;  // ranks driven by this process (GPUs with -g)
  virtual int first_rank() const = 0;   // global rank of this process's first local rank
  virtual std::vector<DeviceDesc> devices() const = 0;            // one per local rank
  virtual std::map<std::string, std::string> versions() const = 0;  // "nccl", "cuda_driver", ...

  // Why this backend cannot run the call, or nullopt when it can.
  virtual std::optional<std::string> unsupported(const CallShape& call) const = 0;
  // Whether the result of this call can be checked (nccl-tests reports N/A otherwise).
  virtual bool verifiable(const CallShape& call) const = 0;

  // Buffers for calls up to these sizes, per local rank. Throws UsageError (naming the sizes and
  // the memory available) when they cannot fit, before allocating anything.
  virtual void reserve(std::uint64_t send_bytes, std::uint64_t recv_bytes) = 0;
  // Inputs filled with the pattern for `seed`, outputs poisoned.
  virtual void fill(const CallShape& call, std::uint64_t seed) = 0;
  // `iters` back-to-back calls; with `samples`, each call's time is appended per local rank. With
  // `starts`, when each call began on this process's steady clock (steady_now_s), where that is when
  // the process reached the collective: host-driven backends. The nccl backend's launches return
  // before the GPU reaches the collective, so it leaves `starts` as it is.
  virtual void run(const CallShape& call, int iters, LocalSamples* samples, std::vector<double>* starts) = 0;
  // Calls behind each unit run() counts and each sample it appends (a sample is their mean time):
  // the pacing of batches and the stopping rule's clock count units, not calls.
  virtual int calls_per_sample(const CallShape& /*call*/) const { return 1; }
  // One call on its own, outside any batching (the result check: its inputs are used once).
  virtual void run_once(const CallShape& call) { run(call, 1, nullptr, nullptr); }
  // Whether run() fills `starts`; when not, the sweep spends no time lining up the hosts' clocks.
  virtual bool records_arrivals() const { return true; }
  // How this backend measures, where a reader of its numbers needs to know (header notes).
  virtual std::vector<std::string> method_notes() const { return {}; }
  // Wrong result elements over this process's ranks (call verifiable() first).
  virtual std::int64_t count_wrong(const CallShape& call, std::uint64_t seed) = 0;
  // Test hook: spoil one result element on local rank 0.
  virtual void corrupt_result(const CallShape& call) = 0;

  // Collective: this process's share of a backend over the processes with the same `color`
  // (node or rail groups, measured concurrently). Ranks keep their order.
  virtual std::unique_ptr<Backend> split(int /*color*/) {
    throw RunError("--scope node|rail: the " + name() + " backend cannot split its communicator yet; use --scope world");
  }
};

// The pattern spec of local rank `local` for this call.
inline pattern::Spec pattern_spec(const Backend& b, const CallShape& call, std::uint64_t seed, int local) {
  return pattern::Spec{call.coll,       call.redop, seed, b.first_rank() + local, b.world_ranks(),
                       call.root,       call.counts.param};
}

}  // namespace collbench
