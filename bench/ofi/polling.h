// How a rank waits for completions, chosen from how many ranks share its machine's cores.
// Pure: no libfabric.
#pragma once

#include <string>
#include <vector>

namespace collbench::ofi {

// Spin: poll the queue without pause, as fi_pingpong does; the fastest when every rank on the
// machine has a core of its own. Yield: hand the core over after each empty poll, so that when
// ranks outnumber cores (several ranks per core, a fake cluster on one machine) the peer being
// waited for runs instead of being spun against for a time slice (measured: 35-40 us ping-pongs
// instead of 11 us with six ranks on two cores).
enum class Polling { Spin, Yield };

const char* polling_name(Polling p);

struct PollingPlan {
  std::vector<Polling> by_rank;
  std::string summary;  // "spin", "yield" or "mixed"
  std::string reason;   // e.g. "2 ranks on 2 cores", "6 ranks on 2 cores on host node1"
};

// Per rank: its machine (ranks that share one share its cores), the machine's online cores and
// its host name. A machine whose ranks fit on its cores spins; one with more ranks than cores,
// or whose core count is unknown (0), yields.
PollingPlan plan_polling(const std::vector<std::string>& machine_by_rank, const std::vector<int>& cores_by_rank,
                         const std::vector<std::string>& host_by_rank);

// The user's choice (--polling spin|yield) for every rank instead.
PollingPlan forced_polling(Polling p, int ranks);

}  // namespace collbench::ofi
