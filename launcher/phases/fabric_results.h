// Rank 0's side of `collbench fabric` after the measurements: the lanes' raw samples become the
// result model (reports/fabric/fabric_result.h), then verdicts, text, and the JSON document.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "bench/ofi/endpoint.h"
#include "bench/ofi/lane_run.h"
#include "bench/ofi/lanes.h"
#include "bench/ofi/provider_choice.h"
#include "launcher/cli/command.h"
#include "reports/pairs/attribution.h"
#include "reports/fabric/fabric_result.h"
#include "reports/thresholds/thresholds.h"

namespace collbench {

// One lane's samples, as this rank timed them, for the trip to rank 0.
nlohmann::json lane_samples_json(const ofi::Lane& lane, bool initiator, const ofi::LaneSamples& s);

class FabricResults {
 public:
  FabricResults(const FabricOptions& o, std::vector<std::string> argv, std::string started_at);

  void set_layout(int ranks, const std::vector<ofi::Unit>& nodes, const std::vector<ofi::Unit>& units, bool per_rank,
                  const Schedule& schedule);
  void set_provider(const ofi::ProviderChoice& choice, const ofi::EndpointFacts& facts, const std::string& libfabric);
  void set_polling(const std::string& polling, const std::string& reason);
  void set_environment(const std::string& instance_type, const std::optional<report::InstanceThresholds>& t,
                       const std::vector<int>& efa_by_rank);
  std::string header() const;
  // Per rank, the most runnable tasks per core it saw around its rounds; kept per node (the busiest).
  void set_load(const std::vector<double>& runnable_by_rank);

  // A gathered array of lane_samples_json() objects.
  void add_lanes(const nlohmann::json& lanes);

  void set_budget(double seconds) { run_.budget_s = seconds; }
  // The pair rounds are done: what follows is confirmation (`rounds`, maybe none).
  void add_confirmation(const Schedule& rounds);
  void add_not_measured(const std::vector<std::pair<int, int>>& pairs);
  // Latency and bandwidth verdicts of the pair rounds so far, without confirmation: whom to confirm.
  std::vector<report::Attribution> first_verdicts() const;

  // After the last round: prints the tables and matrices and returns the findings.
  std::vector<report::Finding> judge();
  // The JSON document for the command's final findings and exit code (after judge()).
  nlohmann::json document(const std::vector<report::Finding>& findings, int exit_code) const;

  const report::FabricRun& run() const { return run_; }

 private:
  report::FabricLane& lane(int round, int a, int b, int lane, int rank_a, int rank_b);

  report::FabricRun run_;
  std::optional<report::HardwareProfile> profile_;
  std::uint64_t planned_bandwidth_bytes_ = 0;  // the largest bandwidth size asked for
  std::optional<report::Attribution> latency_, bandwidth_;  // set by judge()
};

}  // namespace collbench
