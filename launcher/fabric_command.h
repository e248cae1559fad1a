// `collbench fabric`: libfabric RDM endpoints on every rank, ping-pong latency and streaming
// bandwidth between scheduled pairs, attribution and findings.
#pragma once

#include <string>
#include <vector>

#include "launcher/cli.h"

namespace collbench {

// Called with MPI initialised; returns the process exit code. Built without libfabric, it says so
// and returns 1.
int fabric_command(const Command& cmd, const std::vector<std::string>& argv);

}  // namespace collbench
