// The join window's open collectives, for inspector_job.cpp: what each holds until its last rank
// reports, and the set of them by (communicator, coll_sn) key.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace collbench::report::inspector {

struct Open {
  std::vector<float> exec_us;  // per rank; negative: not reported yet
  int present = 0;
  float best_busbw = 0;
  int series = -1;
  std::uint64_t sn = 0;
  std::uint64_t ts_us = 0;  // the latest dump timestamp of its records
};

// The open collectives by key: slots in one flat table (linear probing) pointing into a pool of Open
// that closed collectives hand back with their per-rank buffer. A node-based map cost a few cache
// misses a record, with a thousand files' read buffers streaming through the cache.
class OpenSet {
 public:
  std::size_t size() const { return size_; }
  bool contains(std::uint64_t key) const { return table_.empty() ? false : table_[probe(key)].index != 0; }
  Open* find(std::uint64_t key) {
    if (table_.empty()) return nullptr;
    const Slot& s = table_[probe(key)];
    return s.index ? &pool_[s.index - 1] : nullptr;
  }
  // The collective's Open, and whether it was just opened (then empty: no ranks, no series).
  std::pair<Open*, bool> try_emplace(std::uint64_t key) {
    if (2 * (size_ + 1) > table_.size()) grow();
    Slot& s = table_[probe(key)];
    if (s.index) return {&pool_[s.index - 1], false};
    if (free_.empty()) {
      pool_.emplace_back();
      free_.push_back(static_cast<std::uint32_t>(pool_.size()));
    }
    s = {key, free_.back()};
    free_.pop_back();
    ++size_;
    Open& o = pool_[s.index - 1];
    std::vector<float> buffer = std::move(o.exec_us);  // every field fresh but the buffer's memory
    o = Open{};
    o.exec_us = std::move(buffer);
    return {&o, true};
  }
  void erase(std::uint64_t key) {
    std::size_t i = probe(key);
    if (!table_[i].index) return;
    Open& o = pool_[table_[i].index - 1];
    if (o.exec_us.capacity() > 1024) o.exec_us = {};  // the pool keeps at most 4 KiB a collective
    free_.push_back(table_[i].index);
    --size_;
    // Backward-shift deletion: later slots of the run move up into the gap unless they sit at or
    // past their own home slot's place in it.
    for (std::size_t j = i;;) {
      table_[i].index = 0;
      for (;;) {
        j = (j + 1) & mask_;
        if (!table_[j].index) return;
        const std::size_t home = hash(table_[j].key);
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
        break;
      }
      table_[i] = table_[j];
      i = j;
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = 0;  // into pool_, plus one; 0: empty
  };
  std::size_t hash(std::uint64_t key) const { return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 32) & mask_; }
  std::size_t probe(std::uint64_t key) const {
    std::size_t i = hash(key);
    while (table_[i].index && table_[i].key != key) i = (i + 1) & mask_;
    return i;
  }
  void grow() {
    std::vector<Slot> old = std::move(table_);
    table_.assign(std::max<std::size_t>(1024, 2 * old.size()), Slot{});
    mask_ = table_.size() - 1;
    for (const Slot& s : old)
      if (s.index) table_[probe(s.key)] = s;
  }
  std::vector<Slot> table_;
  std::vector<Open> pool_;
  std::vector<std::uint32_t> free_;
  std::size_t size_ = 0, mask_ = 0;
};

}  // namespace collbench::report::inspector
