// Which processes of the job answer, asked through the launcher's PMIx server rather than MPI: MPI
// is what waits when a process never starts, or stops inside a collective. Each process posts a
// key; the others ask for it, and a process that has not posted it within the wait is silent
// (never started, stopped, hung or unreachable). Without PMIx (another launcher) nothing can be
// asked: silent() returns nothing and each process can only speak for itself.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace collbench {

struct MissingRank {
  int rank = 0;
  std::string host;  // where the launcher placed it; "" when unknown
};

// This process's rank and the job's size as the launcher numbers them (MPI_COMM_WORLD's under
// mpirun and srun); readable before MPI_Init.
int launcher_rank();
int launcher_size();

// Connects to the launcher's PMIx server (once; the first call announces "collbench.started").
// False when there is none.
bool job_peers_available();

// Posts `key` (with `value`) for this process.
void announce_to_peers(const char* key, const std::string& value = "");

// What each rank of the job posted under `key` within `wait_s` seconds, by rank: nullopt for this
// process and for the ranks that posted nothing. Empty without PMIx.
std::vector<std::optional<std::string>> peers_posted(const char* key, double wait_s);

// The host the launcher placed `rank` on; "" when unknown.
std::string peer_host(int rank);

// The ranks other than this one that have not posted `key` within `wait_s` seconds, with their
// hosts. Empty without PMIx.
std::vector<MissingRank> silent_peers(const char* key, double wait_s);

}  // namespace collbench
