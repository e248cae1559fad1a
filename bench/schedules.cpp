#include "bench/schedules.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace collbench {

namespace {

std::pair<int, int> ordered(int a, int b) { return a < b ? std::pair{a, b} : std::pair{b, a}; }

}  // namespace

Schedule pairwise_schedule(int n) {
  if (n < 2) return {};
  // Odd n: add a phantom node m-1 = n; whoever meets it sits the round out.
  const int m = n % 2 == 0 ? n : n + 1;
  Schedule out;
  out.reserve(m - 1);
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    round.pairs.reserve(m / 2);
    // Node m-1 stays put; the others rotate around it.
    if (m - 1 < n) round.pairs.push_back(ordered(r, m - 1));
    for (int i = 1; i < m / 2; ++i)
      round.pairs.push_back(ordered((r + i) % (m - 1), (r - i + (m - 1)) % (m - 1)));
    out.push_back(std::move(round));
  }
  return out;
}

Schedule screen_schedule(int n) {
  if (n < 2) return {};
  if (n == 2) return {Round{{{0, 1}}}};
  Schedule out;
  std::vector<std::vector<char>> busy;  // busy[round][node]
  std::set<std::pair<int, int>> used;
  // Ring edges, each into the first round where both ends are free: 2 rounds for even n, 3 for odd.
  for (int i = 0; i < n; ++i) {
    const auto p = ordered(i, (i + 1) % n);
    if (!used.insert(p).second) continue;
    std::size_t r = 0;
    while (r < out.size() && (busy[r][p.first] || busy[r][p.second])) ++r;
    if (r == out.size()) {
      out.emplace_back();
      busy.emplace_back(n, 0);
    }
    out[r].pairs.push_back(p);
    busy[r][p.first] = busy[r][p.second] = 1;
  }
  // One stride round for a third partner: the median of three partners outvotes one bad link.
  // For odd n it shares the round holding the lone closing edge (n-1, 0).
  const int h = n / 2;
  const bool share = n % 2 == 1;
  if (!share) {
    out.emplace_back();
    busy.emplace_back(n, 0);
  }
  Round& last = out.back();
  auto& free_ = busy.back();
  for (int i = 0; i < n; ++i) {
    const auto p = ordered(i, (i + h) % n);
    if (free_[p.first] || free_[p.second] || used.count(p)) continue;
    used.insert(p);
    last.pairs.push_back(p);
    free_[p.first] = free_[p.second] = 1;
  }
  if (last.pairs.empty()) out.pop_back();
  return out;
}

Schedule confirm_schedule(const std::vector<int>& suspects, const std::vector<int>& healthy) {
  std::vector<int> partners;
  for (int h : healthy)
    if (std::find(suspects.begin(), suspects.end(), h) == suspects.end() &&
        std::find(partners.begin(), partners.end(), h) == partners.end())
      partners.push_back(h);
  std::vector<int> todo;
  for (int s : suspects)
    if (std::find(todo.begin(), todo.end(), s) == todo.end()) todo.push_back(s);
  if (partners.empty() || todo.empty()) return {};
  const std::size_t k = partners.size();
  Schedule out((todo.size() + k - 1) / k);
  for (std::size_t i = 0; i < todo.size(); ++i) out[i / k].pairs.push_back(ordered(todo[i], partners[i % k]));
  return out;
}

Schedule auto_schedule(int n) { return n <= 8 ? pairwise_schedule(n) : screen_schedule(n); }

Schedule schedule_for_pattern(const std::string& pattern, int n) {
  if (pattern == "pairwise") return pairwise_schedule(n);
  if (pattern == "screen") return screen_schedule(n);
  return auto_schedule(n);
}

int schedule_pairs(const Schedule& s) {
  int total = 0;
  for (const auto& r : s) total += static_cast<int>(r.pairs.size());
  return total;
}

std::optional<std::string> check_schedule(const Schedule& s, int n) {
  std::vector<int> seen(std::max(n, 0), -1);  // round in which a node last appeared
  for (std::size_t r = 0; r < s.size(); ++r) {
    for (const auto& [a, b] : s[r].pairs) {
      if (a < 0 || a >= n || b < 0 || b >= n)
        return fmt::format("round {}: pair ({}, {}) is outside nodes 0..{}", r, a, b, n - 1);
      if (a == b) return fmt::format("round {}: node {} is paired with itself", r, a);
      for (int v : {a, b}) {
        if (seen[v] == static_cast<int>(r)) return fmt::format("round {}: node {} is in two pairs", r, v);
        seen[v] = static_cast<int>(r);
      }
    }
  }
  return std::nullopt;
}

}  // namespace collbench
