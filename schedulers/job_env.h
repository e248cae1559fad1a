// The environment a collbench job exports on an instance type: what libfabric and NCCL need to use
// EFA, and what Open MPI needs when it launches the ranks itself. Every setting says why and where
// the value comes from, and the launch files print both beside it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/thresholds/thresholds.h"

namespace collbench::launch {

struct EnvSetting {
  std::string name, value;
  std::string why;     // one line
  std::string source;  // a public recipe or document
};

// For a profile with EFA devices: FI_PROVIDER=efa (fail rather than fall back to TCP), FI_EFA_FORK_SAFE,
// and FI_EFA_USE_DEVICE_RDMA on the GPUDirect RDMA types; NCCL's bootstrap interfaces. Nothing for a
// type without EFA or without a profile.
std::vector<EnvSetting> efa_environment(const std::string& instance_type,
                                        const std::optional<report::HardwareProfile>& hw);

// `export NAME=VALUE` lines for a shell script, each after its reason and source as comments.
std::string shell_exports(const std::vector<EnvSetting>& env);

// Open MPI's own settings for an mpirun launch on EC2 hosts (no UCX, TCP out-of-band on the ENA
// interface, PMIx's hash store).
std::vector<EnvSetting> open_mpi_environment();

}  // namespace collbench::launch
