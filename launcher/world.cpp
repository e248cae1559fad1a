#include "launcher/world.h"

#include <mpi.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "bench/mpi_check.h"

namespace collbench {
std::vector<std::string> gather_strings(const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm comm = dup_world(&rank, &size);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank == 0 ? size : 0), offsets(rank == 0 ? size : 0);
  MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm));
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, comm));
  MPI_Comm_free(&comm);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i) out.push_back(all.substr(offsets[i], lens[i]));
  return out;
}

std::vector<report::NodeInfo> group_nodes(const std::vector<report::RankInfo>& ranks) {
  std::vector<report::NodeInfo> nodes;
  for (const auto& r : ranks) {
    auto it = std::find_if(nodes.begin(), nodes.end(), [&](const auto& n) { return n.name == r.host; });
    if (it == nodes.end()) it = nodes.insert(nodes.end(), report::NodeInfo{r.host, {}});
    it->ranks.push_back(r.rank);
  }
  return nodes;
}

report::WorldInfo describe_world(const Backend& backend, const std::string& reason) {
  nlohmann::json mine = nlohmann::json::array();
  const auto devices = backend.devices();
  for (int i = 0; i < backend.local_ranks(); ++i) {
    const DeviceDesc d = i < static_cast<int>(devices.size()) ? devices[i] : DeviceDesc{};
    mine.push_back({backend.first_rank() + i, static_cast<int>(getpid()), this_host(), d.device, d.bus_id, d.name});
  }
  const auto parts = gather_strings(mine.dump());

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
                             r[4].get<std::string>(), r[5].get<std::string>()});
  w.nodes = group_nodes(w.rank_info);
  return w;
}

}  // namespace collbench
