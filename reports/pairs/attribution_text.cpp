#include <algorithm>

#include <fmt/format.h>

#include "reports/pairs/attribution.h"
#include "reports/pairs/pair_findings.h"
#include "reports/pairs/pair_matrix.h"
#include "reports/core/references.h"

namespace collbench::report {

std::vector<Finding> attribution_findings(const Attribution& a, const std::vector<std::string>& names,
                                          const std::string& what, const std::vector<std::vector<int>>& ranks) {
  PairWords w;
  w.what = what;
  w.slow_node_code = "STRAGGLER_NODE";
  w.slow_link_code = "SLOW_LINK";
  w.inconclusive_code = "HUNT_INCONCLUSIVE";
  w.pass_code = "NO_STRAGGLER";
  w.one_pair_code = "HUNT_TWO_NODES";
  w.drain_reason = "collbench: slow";
  w.wide_reference = ref::kMultiNode;
  w.more_samples = "-n";
  w.one_pair_hint =
      "the node phase (each node's own ranks, with 2+ ranks per node), the pair against the instance thresholds "
      "('collbench run'), and the fabric rank by rank ('collbench fabric', which pairs ranks)";
  return pair_findings(a, {names, ranks, ""}, w);
}

std::string render_matrix(const Attribution& a, const std::vector<std::string>& names) {
  const MatrixText m = render_pair_matrix(a, a.matrix, names, {"nodes:", "      ", 10, 4, false});
  return m.legend +
         fmt::format("median busbw GB/s per node pair{}\n",
                     std::any_of(a.nodes.begin(), a.nodes.end(),
                                 [](const NodeVerdict& nv) { return nv.kind == NodeVerdict::Kind::Straggler; })
                         ? "; * = straggler"
                         : "") +
         m.table;
}

}  // namespace collbench::report
