#include "bench/ofi/traffic.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "bench/sizes.h"

namespace collbench::ofi {
namespace {

using Clock = RdmEndpoint::Clock;

// Tags: the caller's sequence number above, the message kind in the low bits, so a message of one
// measurement can never match a receive of the next.
enum Kind : std::uint64_t { kPing = 1, kPong = 2, kData = 3, kAck = 4 };
std::uint64_t tag_of(std::uint64_t base, Kind k) { return (base << 3) | k; }

struct Guard {
  const TrafficOptions& o;
  int peer;
  std::string what;
  Clock::time_point deadline() const {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
  }
  void check(bool ok) const {
    if (!ok) throw PeerTimeout(peer, fmt::format("{}, no completion within --timeout {:g} s", what, o.timeout_s));
  }
};

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// The mark on the first byte of each message: more to come, the last iteration, or the last one of
// a measurement whose share ran out before its warm-up and minimum samples (Timed::starved).
constexpr char kGo = 'c', kStop = 's', kStarved = 'x';
bool is_last(char mark) { return mark == kStop || mark == kStarved; }

// The timing side's view of one measurement: which iterations are warm-up, and whether the one
// starting now is the last. With max_time_s, the measurement (warm-up included) ends once it has run
// that long and min_samples were timed; a warm-up that alone runs that long is cut after its first
// iteration (which sets up the connection).
class Pace {
 public:
  Pace(const TrafficOptions& o, std::size_t bytes)
      : o_(o), capped_(o.max_time_s > 0 && bytes > 0), timed_from_(o.warmup), start_(Clock::now()) {}
  bool last(int i, Clock::time_point now) {
    const bool over = capped_ && seconds(start_, now) >= o_.max_time_s;
    if (over && !was_over_) starved_ = i < o_.warmup + min_samples();
    was_over_ = was_over_ || over;
    if (over && i >= 1 && i < timed_from_) timed_from_ = i;
    const int samples = i - timed_from_ + 1;
    return samples >= o_.iters || (over && samples >= min_samples());
  }
  bool timed(int i) const { return i >= timed_from_; }
  // The share ran out before the planned warm-up and the minimum samples were done.
  bool starved() const { return starved_; }
  // The mark for the message of iteration i, whose last() was `last`.
  char mark(bool last) const { return !last ? kGo : starved_ ? kStarved : kStop; }

 private:
  int min_samples() const { return std::max(o_.min_samples, 1); }
  const TrafficOptions& o_;
  bool capped_;
  int timed_from_;
  Clock::time_point start_;
  bool was_over_ = false, starved_ = false;
};

}  // namespace

Timed pingpong(RdmEndpoint& ep, int peer, bool initiator, std::size_t bytes, std::uint64_t tag,
               const TrafficOptions& o) {
  const Guard g{o, peer, fmt::format("latency ping-pong at {}", size_text(bytes))};
  Pace pace(o, bytes);
  const int total = o.warmup + o.iters;
  const std::uint64_t in_tag = tag_of(tag, initiator ? kPong : kPing), out_tag = tag_of(tag, initiator ? kPing : kPong);
  Timed out;
  if (initiator) out.seconds.reserve(static_cast<std::size_t>(o.iters));
  const std::uint64_t recv_base = ep.recvs_done(), send_base = ep.sends_done();
  // The next receive is always posted before the message that provokes it is sent.
  g.check(ep.post_recv(bytes, in_tag, g.deadline()));
  int i = 0;
  for (bool last = false; !last; ++i) {
    if (initiator) {
      const auto t0 = Clock::now();
      last = pace.last(i, t0);
      if (bytes > 0) ep.set_mark(pace.mark(last));
      g.check(ep.post_send(peer, bytes, out_tag, g.deadline()));
      g.check(ep.wait(0, recv_base + static_cast<std::uint64_t>(i) + 1, g.deadline()));
      const auto t1 = Clock::now();
      if (pace.timed(i)) out.seconds.push_back(seconds(t0, t1) / 2);
      out.starved = pace.starved();
    } else {
      g.check(ep.wait(0, recv_base + static_cast<std::uint64_t>(i) + 1, g.deadline()));
      last = i + 1 == total || (bytes > 0 && is_last(ep.received_mark()));
      out.starved = bytes > 0 && ep.received_mark() == kStarved;
    }
    if (!last) g.check(ep.post_recv(bytes, in_tag, g.deadline()));
    if (!initiator) g.check(ep.post_send(peer, bytes, out_tag, g.deadline()));
  }
  g.check(ep.wait(send_base + static_cast<std::uint64_t>(i), 0, g.deadline()));  // i: iterations run
  return out;
}

Timed stream(RdmEndpoint& ep, int peer, StreamRole role, std::size_t bytes, std::uint64_t tag,
             const TrafficOptions& o) {
  const char* dir = role == StreamRole::Both ? "bidirectional" : role == StreamRole::Send ? "send" : "receive";
  const Guard g{o, peer, fmt::format("{} stream at {} (window {})", dir, size_text(bytes), o.window)};
  Pace pace(o, bytes);
  const int total = o.warmup + o.iters;
  const auto w = static_cast<std::uint64_t>(o.window);
  Timed out;
  std::uint64_t sends = ep.sends_done(), recvs = ep.recvs_done();
  const std::uint64_t data = tag_of(tag, kData), ack = tag_of(tag, kAck);
  if (role == StreamRole::Receive)  // the first window's receives; later ones go up before each ack
    for (std::uint64_t k = 0; k < w; ++k) g.check(ep.post_recv(bytes, data, g.deadline()));
  bool last = false;
  for (int i = 0; !last; ++i) {
    const auto t0 = Clock::now();
    // The sender's decision, on its own clock; the receiver learns it from the data's mark.
    const bool mine = role != StreamRole::Receive && pace.last(i, t0);
    switch (role) {
      case StreamRole::Send:
        last = mine;
        out.starved = pace.starved();
        if (bytes > 0) ep.set_mark(pace.mark(last));
        g.check(ep.post_recv(0, ack, g.deadline()));
        for (std::uint64_t k = 0; k < w; ++k) g.check(ep.post_send(peer, bytes, data, g.deadline()));
        sends += w, recvs += 1;
        g.check(ep.wait(sends, recvs, g.deadline()));
        break;
      case StreamRole::Receive:
        recvs += w;
        g.check(ep.wait(sends, recvs, g.deadline()));
        last = i + 1 == total || (bytes > 0 && is_last(ep.received_mark()));
        out.starved = bytes > 0 && ep.received_mark() == kStarved;
        if (!last)
          for (std::uint64_t k = 0; k < w; ++k) g.check(ep.post_recv(bytes, data, g.deadline()));
        g.check(ep.post_send(peer, 0, ack, g.deadline()));
        sends += 1;
        break;
      case StreamRole::Both:
        if (bytes > 0) ep.set_mark(pace.mark(mine));
        for (std::uint64_t k = 0; k < w; ++k) g.check(ep.post_recv(bytes, data, g.deadline()));
        for (std::uint64_t k = 0; k < w; ++k) g.check(ep.post_send(peer, bytes, data, g.deadline()));
        sends += w, recvs += w;
        g.check(ep.wait(sends, recvs, g.deadline()));
        // Both sides know both marks now, so both stop after the same iteration.
        last = mine || (bytes > 0 && is_last(ep.received_mark()));
        out.starved = pace.starved() || (bytes > 0 && ep.received_mark() == kStarved);
        break;
    }
    const auto t1 = Clock::now();
    if (role != StreamRole::Receive && pace.timed(i)) out.seconds.push_back(seconds(t0, t1));
  }
  g.check(ep.wait(sends, recvs, g.deadline()));
  return out;
}

}  // namespace collbench::ofi
