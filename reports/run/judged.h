// What a verdict did not judge, said as findings that count in Issues Found, so that a summary says
// HEALTHY only about what was judged; and values no measurement can produce, which make an input
// untrusted.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"
#include "reports/core/result.h"

namespace collbench::report {

// NO_LINK_CROSSED (WARN P2) for one rank: its "bandwidth" is a copy within its own memory.
std::optional<Finding> single_rank_finding(int ranks);

// INPUT_INCOMPLETE (WARN P2): the input ended before its sweep did; `why` says how that shows.
Finding incomplete_input_finding(const std::string& why);

// What the network of a multi-node run can carry: `node_gbytes` GB/s into (and out of) each node.
struct NetworkLimit {
  int ranks = 0, nodes = 0;
  double node_gbytes = 0;  // the instance's EFA bandwidth, GB/s per direction
  std::string instance;
};

// The most bus bandwidth `op` can show when every byte between nodes crosses the network: the data each
// node must receive (or send) over it, at the limit, mapped through nccl-tests' busbw factor. Lower
// bounds on the traffic (intra-node reduction is free; EFA reduces nothing in the network):
//   all_reduce: every node receives 2 S (N-1)/N, busbw = 2 (n-1)/n S/t  -> busbw <= B N (n-1) / (n (N-1))
//   all_gather, reduce_scatter: S (N-1)/N, busbw = (n-1)/n S/t           -> the same bound
//   all_to_all: each node's g = n/N ranks send S (n-g)/n off the node -> busbw <= B (n-1) / (g (n-g))
//   broadcast, reduce, sendrecv: a node receives S -> busbw <= B
// S: the buffer size nccl-tests divides by, n ranks, N nodes. nullopt: unknown op, or under 2 nodes.
std::optional<double> network_busbw_bound(const std::string& op, const NetworkLimit& limit);

// IMPLAUSIBLE_VALUES (WARN P1): a negative or non-finite time, algbw or busbw, a #wrong below 0, or,
// given the network's limit, a world-scope busbw above network_busbw_bound (with 5% for the rounding of
// printed tables). The sizes are listed; the caller drops the [PASS] findings of such an input.
std::optional<Finding> implausible_values_finding(const std::vector<CaseResult>& cases,
                                                  const std::optional<NetworkLimit>& limit = std::nullopt);

// The findings without the [PASS] ones: what stays of a verdict on an input that is not trusted.
std::vector<Finding> without_passes(std::vector<Finding> findings);

}  // namespace collbench::report
