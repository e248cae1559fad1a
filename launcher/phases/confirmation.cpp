#include "launcher/phases/confirmation.h"

#include <algorithm>
#include <set>

#include <span>

namespace collbench {

Schedule confirmation_schedule(const std::vector<const report::Attribution*>& first) {
  if (first.empty()) return {};
  std::set<int> suspect;
  std::set<std::pair<int, int>> links;
  for (const auto* a : first) {
    for (const auto& nv : a->nodes)
      if (nv.kind != report::NodeVerdict::Kind::Healthy) suspect.insert(nv.node);
    for (const auto* ls : {&a->slow_links, &a->suspect_links})
      for (const auto& l : *ls) links.insert({std::min(l.a, l.b), std::max(l.a, l.b)});
  }
  std::vector<const report::NodeVerdict*> good;
  for (const auto& nv : first.front()->nodes)
    if (!suspect.count(nv.node)) good.push_back(&nv);
  std::stable_sort(good.begin(), good.end(), [](const auto* x, const auto* y) { return x->score > y->score; });
  std::vector<int> healthy;
  for (const auto* nv : good) healthy.push_back(nv->node);
  Schedule out = confirm_schedule(std::vector<int>(suspect.begin(), suspect.end()), healthy);
  Schedule link_rounds;
  for (const auto& [a, b] : links) {
    auto fits = [&](const Round& r) {
      return std::none_of(r.pairs.begin(), r.pairs.end(), [&](const auto& p) {
        return p.first == a || p.second == a || p.first == b || p.second == b;
      });
    };
    auto it = std::find_if(link_rounds.begin(), link_rounds.end(), fits);
    if (it == link_rounds.end()) it = link_rounds.insert(link_rounds.end(), Round{});
    it->pairs.push_back({a, b});
  }
  out.insert(out.end(), link_rounds.begin(), link_rounds.end());
  return out;
}

Schedule broadcast_schedule(const Schedule& mine, Control& control) {
  std::vector<int> flat;
  for (const auto& r : mine) {
    flat.push_back(static_cast<int>(r.pairs.size()));
    for (const auto& [a, b] : r.pairs) flat.insert(flat.end(), {a, b});
  }
  int size = static_cast<int>(flat.size());
  control.broadcast(std::span<int>(&size, 1));
  flat.resize(static_cast<std::size_t>(size));
  control.broadcast(std::span<int>(flat));
  Schedule out;
  for (std::size_t i = 0; i < flat.size();) {
    Round r;
    const int pairs = flat[i++];
    for (int p = 0; p < pairs; ++p, i += 2) r.pairs.push_back({flat[i], flat[i + 1]});
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace collbench
