// Node-pair schedules for the straggler hunt: which node pairs measure together, round by round.
// Pure functions over node indices 0..n-1; pairs within one round are node-disjoint, so a round's
// pairs run concurrently without sharing a node.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

struct Round {
  std::vector<std::pair<int, int>> pairs;  // (a, b) with a < b
  bool operator==(const Round&) const = default;
};
using Schedule = std::vector<Round>;

// Circle method (round-robin tournament): every unordered pair exactly once, n-1 rounds for even
// n, n rounds for odd n (one node idle per round). Empty for n < 2.
Schedule pairwise_schedule(int n);

// A few rounds that give every node at least two different partners (n >= 3): ring neighbours
// (i, i+1) split into node-disjoint rounds (two for even n, three for odd n), then one stride
// round (i, i+n/2) for a third partner where it fits. n = 2 has a single possible partner, so the
// screen is the single pair; n = 3 is the full triangle (three rounds of one pair).
Schedule screen_schedule(int n);

// Pairs each suspect with a distinct healthy node; more than one round only when the suspects
// outnumber the healthy nodes (then healthy nodes are reused round-robin, once per round). Empty
// when either list is empty. Suspects that also appear in `healthy` are not used as partners.
Schedule confirm_schedule(const std::vector<int>& suspects, const std::vector<int>& healthy);

// Full pairwise for small clusters (n <= 8), where it costs few rounds; else the screen. Node
// scope and confirmation rounds are the caller's.
Schedule auto_schedule(int n);

// "pairwise", "screen" or "auto" (anything else) for n nodes.
Schedule schedule_for_pattern(const std::string& pattern, int n);

int schedule_pairs(const Schedule& s);

// Why the schedule is not valid for n nodes (index out of range, a self pair, a node twice in one
// round), or nullopt when it is.
std::optional<std::string> check_schedule(const Schedule& s, int n);

}  // namespace collbench
