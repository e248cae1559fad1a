#include "bench/ofi/lane_run.h"

namespace collbench::ofi {

LaneSamples run_lane(RdmEndpoint& ep, int peer, bool initiator, const LanePlan& plan) {
  LaneSamples out;
  std::uint64_t tag = plan.tag_base;
  for (std::uint64_t bytes : plan.latency_sizes) {
    auto s = pingpong(ep, peer, initiator, bytes, tag++, plan.pingpong);
    if (initiator) out.latency.push_back({bytes, std::move(s.seconds)});
    if (s.starved && bytes != plan.latency_sizes.back()) {  // starved at the last size: nothing skipped
      out.latency_starved_at = bytes;
      break;
    }
  }
  for (std::uint64_t bytes : plan.bandwidth_sizes) {
    auto fwd = stream(ep, peer, initiator ? StreamRole::Send : StreamRole::Receive, bytes, tag++, plan.stream);
    auto back = stream(ep, peer, initiator ? StreamRole::Receive : StreamRole::Send, bytes, tag++, plan.stream);
    auto both = stream(ep, peer, StreamRole::Both, bytes, tag++, plan.stream);
    if (initiator) {
      out.forward.push_back({bytes, std::move(fwd.seconds)});
      out.bidir.push_back({bytes, std::move(both.seconds)});
    } else {
      out.backward.push_back({bytes, std::move(back.seconds)});
    }
    if ((fwd.starved || back.starved || both.starved) && bytes != plan.bandwidth_sizes.back()) {
      out.bandwidth_starved_at = bytes;
      break;
    }
  }
  return out;
}

}  // namespace collbench::ofi
