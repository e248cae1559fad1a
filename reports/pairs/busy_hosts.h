// Hosts whose CPUs were oversubscribed while pairs were measured (runnable tasks per core above 1,
// bench/host_load.h). Contention slows a pair by up to a few times on its own — on the fake cluster
// with one core of two hogged, healthy pairs of one fabric run ranged 17-65 us one way, and a pair
// whose processes shared a core with the hog stayed 2.4x slower in its confirmation round too — so
// on such hosts only a far larger gap accuses. hunt and fabric both judge this way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/pairs/attribution.h"

namespace collbench::report {

bool any_host_busy(const std::vector<double>& runnable_per_core);

// The rule on busy hosts: a pair or node is slow only at max_excused below the others (a quarter
// of their rate: four times their latency).
AttributionOptions busy_host_rule(AttributionOptions o);

// How a command says what busy hosts changed in its verdicts.
struct BusyWords {
  std::string during;  // "the hunt"
  std::string slows;   // what contention slows besides pairs, e.g. " and a node's own collective"
  std::string also;    // what else the command does about it, e.g. ", and a node slow on ... doubt"
};

// Latency on busy hosts: a ping-pong waits for both of its processes to get a CPU at every message,
// so one pair's latency can rise several times on contention alone (fake cluster, 5 runnable tasks
// per core: a healthy pair at 4.6x the others, again in its confirmation round). Its slow links are
// doubted, with that reason, not named; a node slow with every partner still is.
void doubt_links_on_busy_hosts(Attribution& a);

// HOSTS_BUSY (INFO) naming the busy nodes (up to five, with their load) and what it changed;
// nullopt when none was busy. `runnable_per_core` and `names` by node.
std::optional<Finding> busy_hosts_finding(const std::vector<double>& runnable_per_core,
                                          const std::vector<std::string>& names, const BusyWords& words);

}  // namespace collbench::report
