#include "launcher/job/world.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bench/host_load.h"
#include "bench/mpi_check.h"

namespace collbench {
std::vector<report::NodeInfo> group_nodes(const std::vector<report::RankInfo>& ranks) {
  std::vector<report::NodeInfo> nodes;
  for (const auto& r : ranks) {
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.name == r.host; });
    if (it == nodes.end()) it = nodes.insert(nodes.end(), report::NodeInfo{r.host, {}});
    it->ranks.push_back(r.rank);
  }
  return nodes;
}

report::WorldInfo describe_world(Control& control, const Backend& backend, const std::string& reason) {
  nlohmann::json mine = nlohmann::json::array();
  const auto devices = backend.devices();
  for (int i = 0; i < backend.local_ranks(); ++i) {
    const DeviceDesc d = i < static_cast<int>(devices.size()) ? devices[i] : DeviceDesc{};
    mine.push_back({backend.first_rank() + i, static_cast<int>(getpid()), this_host(), d.device, d.bus_id, d.name,
                    machine_id(), online_cores()});
  }
  const auto parts = control.gather_strings(mine.dump());

  report::WorldInfo w;
  w.ranks = backend.world_ranks();
  w.gpus_per_process = backend.local_ranks();
  w.processes = static_cast<int>(parts.size());
  w.backend = backend.name();
  w.backend_reason = reason;
  w.versions = backend.versions();
  for (const auto& part : parts)
    for (const auto& r : nlohmann::json::parse(part))
      w.rank_info.push_back({r[0].get<int>(), r[1].get<int>(), r[2].get<std::string>(), r[3].get<int>(),
                             r[4].get<std::string>(), r[5].get<std::string>(), r[6].get<std::string>(),
                             r[7].get<int>()});
  w.nodes = group_nodes(w.rank_info);
  return w;
}

}  // namespace collbench
