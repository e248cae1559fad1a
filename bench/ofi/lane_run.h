// Everything one lane measures in a round: ping-pong at the latency sizes, then at each bandwidth
// size a stream a->b, one b->a and one both ways at once. Both ranks of the lane call it with their
// side; each returns the samples it timed (raw seconds). A measurement whose time share ran out
// before its warm-up and minimum samples were done (Timed::starved, known to both sides) ends the
// sizes of its kind: the larger ones would only overrun the budget further.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/ofi/traffic.h"

namespace collbench::ofi {

struct SizeSamples {
  std::uint64_t bytes = 0;
  std::vector<double> seconds;
};

struct LaneSamples {
  std::vector<SizeSamples> latency;  // initiator only: one-way latencies
  std::vector<SizeSamples> forward;  // initiator: its a->b stream
  std::vector<SizeSamples> backward; // responder: its b->a stream
  std::vector<SizeSamples> bidir;    // initiator: both ways at once
  // The size whose measurement was starved, the last of its kind measured; 0: none was.
  std::uint64_t latency_starved_at = 0, bandwidth_starved_at = 0;
};

struct LanePlan {
  std::vector<std::uint64_t> latency_sizes, bandwidth_sizes;
  TrafficOptions pingpong, stream;
  std::uint64_t tag_base = 0;  // distinct per round, the same on both sides
};

LaneSamples run_lane(RdmEndpoint& ep, int peer, bool initiator, const LanePlan& plan);

}  // namespace collbench::ofi
