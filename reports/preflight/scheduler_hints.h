// What an operator would run on the scheduler for each node a verdict convicts: printed for a person
// to read and run, never run by collbench.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench::report {

struct SchedulerHint {
  std::string host;
  std::vector<std::string> codes;  // the [FAIL] findings that name the node
  std::string slurm;               // scontrol update ... state=drain reason="..."
  std::string kubernetes;          // kubectl taint ... (and a label that says why)
};

// One hint per node named by a [FAIL] finding about nodes or ranks (not links, not the world: a slow
// link or a world-wide fault does not convict one node), in order of first mention. In a Kubernetes
// pod the host name is the pod's, so the taint looks its node up first.
std::vector<SchedulerHint> scheduler_hints(const std::vector<Finding>& findings, bool in_kubernetes);

// "# Scheduler hints ..." block, or "" when there are none.
std::string render_hints(const std::vector<SchedulerHint>& hints);
nlohmann::json to_json(const SchedulerHint& h);

}  // namespace collbench::report
