// How each iteration's times on all ranks become one (--rank-reduce): chosen on the command line,
// applied by the reports, recorded in every document.
#pragma once

#include <string_view>

namespace collbench {

enum class RankReduce { Mean, Max, Min, Rank0 };

inline const char* rank_reduce_name(RankReduce how) {
  switch (how) {
    case RankReduce::Mean: return "mean";
    case RankReduce::Max: return "max";
    case RankReduce::Min: return "min";
    case RankReduce::Rank0: return "rank0";
  }
  return "mean";
}

// "mean", "max", "min", "rank0"; false for anything else.
inline bool parse_rank_reduce(std::string_view text, RankReduce* out) {
  for (RankReduce how : {RankReduce::Mean, RankReduce::Max, RankReduce::Min, RankReduce::Rank0})
    if (text == rank_reduce_name(how)) {
      *out = how;
      return true;
    }
  return false;
}

}  // namespace collbench
