// The two measurements between a pair of endpoints: ping-pong latency and windowed streaming
// bandwidth. Both sides call the same function with their role; the samples come back raw (seconds
// per iteration) and reports/fabric/fabric_math.h turns them into latency and bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/ofi/endpoint.h"

namespace collbench::ofi {

struct TrafficOptions {
  int warmup = 100;  // untimed iterations first
  int iters = 1000;  // timed iterations
  int window = 16;   // stream: sends outstanding per iteration
  double timeout_s = 30;  // longest wait for one completion; past it, PeerTimeout
  // When > 0, the measurement ends once it has run this long (warm-up included) and `min_samples`
  // were timed, even short of `iters`; a warm-up that alone takes that long is cut after its first
  // iteration. The side that times (the initiator, the sender) decides and marks its last message
  // so the other side stops with it; messages of 0 bytes cannot carry the mark and always run
  // warmup + iters.
  double max_time_s = 0;
  int min_samples = 3;
};

// What one side of a measurement returns: the seconds it timed (none on the side that does not
// time), and whether the time share ran out before the planned warm-up and min_samples timed
// iterations were done, which both sides learn (the last message's mark) so that both can skip the
// larger sizes of a lane too slow for its share.
struct Timed {
  std::vector<double> seconds;
  bool starved = false;
};

// Ping-pong of `bytes` with `peer`. The initiator returns one sample per timed iteration: half the
// round trip (one-way latency, as fi_pingpong's usec/xfer); the responder returns nothing.
// Both sides run the same number of iterations: warmup + iters, fewer with max_time_s.
Timed pingpong(RdmEndpoint& ep, int peer, bool initiator, std::size_t bytes, std::uint64_t tag,
               const TrafficOptions& o);

enum class StreamRole { Send, Receive, Both };

// One iteration: `window` messages of `bytes` in flight at once, then a short acknowledgement from
// the receiver (Send/Receive); with Both, each side sends a window and receives the other's. The
// sending side returns one sample per timed iteration, the seconds from the first post to the
// acknowledgement (Both: to the last completion); Receive returns nothing. With Both, either side's
// mark ends the measurement after that iteration, on both.
Timed stream(RdmEndpoint& ep, int peer, StreamRole role, std::size_t bytes, std::uint64_t tag,
             const TrafficOptions& o);

}  // namespace collbench::ofi
