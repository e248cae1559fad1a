// The hunt's record as typed values, and its JSON document (schema collbench.hunt/1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "reports/pairs/attribution.h"
#include "reports/core/findings.h"
#include "reports/pairs/group_verdicts.h"
#include "reports/core/result.h"

namespace collbench::report {

inline constexpr const char* kHuntSchema = "collbench.hunt/1";
inline constexpr const char* kHuntPartialSchema = "collbench.hunt.partial/1";

struct HuntPlan {
  std::string pattern;  // as asked: auto, pairwise, screen
  std::string op;
  std::uint64_t bytes = 0;
  bool bytes_probed = false;     // chosen by the size probe rather than -b
  double probe_iteration_s = 0;  // one iteration of the median pair of the first round at `bytes`
  double estimate_s = 0;         // for the rounds known before measuring
  int planned_rounds = 0;        // node phase and pair rounds; confirmation is decided later
  double budget_s = 0;           // the whole hunt's wall time
  int max_iters = 0;             // most timed iterations per group and round
};

struct HuntRound {
  std::string phase;  // "node", "pairs" or "confirm"
  int index = 0;      // order in the hunt; PairSample::round of its samples
  double wall_s = 0;  // split, warm-up and timed iterations, as rank 0 saw them
  std::vector<std::pair<int, int>> pairs;  // node pairs; empty for the node phase
};

struct HuntRecord {
  RunHeader header;  // sweep: the one size; world: nodes in attribution order
  HuntPlan plan;
  std::vector<HuntRound> rounds;
  std::vector<GroupScore> node_phase;  // one per node, its last run; empty when the phase did not run
  GroupJudgement node_judgement;       // over every run of the node phase
  std::vector<double> runnable_per_core;  // per node, the busiest its CPUs were during the hunt
  std::vector<PairSample> samples;
  std::vector<std::pair<int, int>> not_measured;  // pairs of rounds the budget did not reach
  bool node_phase_skipped = false;                // planned, but the budget did not reach it
};

// One finished round as a journal line: its timing and each pair's median and samples.
nlohmann::json to_json(const HuntRound& round, const std::vector<PairSample>& samples,
                       const std::vector<std::string>& names);

nlohmann::json hunt_document(const HuntRecord& record, const Attribution& attribution,
                             const std::vector<Finding>& findings, int exit_code);

}  // namespace collbench::report
