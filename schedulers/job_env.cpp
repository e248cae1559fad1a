#include "schedulers/job_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "schedulers/shell_quote.h"

namespace collbench::launch {
namespace {

// aws-samples/awsome-distributed-training at 01b6b78, micro-benchmarks/nccl-tests/slurm/nccl-tests-container.sbatch.
constexpr const char* kSbatchRecipe =
    "https://github.com/aws-samples/awsome-distributed-training/blob/01b6b78fbdc583c84864f199d8833274b21d0bd0/"
    "micro-benchmarks/nccl-tests/slurm/nccl-tests-container.sbatch";
// The same repository at 0610db0, 1.architectures/efa-cheatsheet.md, section 1.
constexpr const char* kCheatsheet =
    "https://github.com/aws-samples/awsome-distributed-training/blob/0610db0638db7364ac53df859d7f785ba1f635c9/"
    "1.architectures/efa-cheatsheet.md (section 1)";
// The same repository at 0162aac, micro-benchmarks/nccl-tests/nccl-tests.Dockerfile.
constexpr const char* kDockerfile =
    "https://github.com/aws-samples/awsome-distributed-training/blob/0162aacd5da07d424e13f44bef8dd2c4cfcc66e4/"
    "micro-benchmarks/nccl-tests/nccl-tests.Dockerfile";

// Instance types with GPUDirect RDMA over EFA (the thresholds/ profiles' sources).
constexpr std::array<const char*, 6> kGpuDirect = {"p4d.24xlarge",  "p4de.24xlarge", "p5.48xlarge",
                                                   "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"};

}  // namespace

std::vector<EnvSetting> efa_environment(const std::string& instance_type,
                                        const std::optional<report::HardwareProfile>& hw) {
  if (!hw || hw->efa_devices <= 0) return {};
  std::vector<EnvSetting> out{
      {"FI_PROVIDER", "efa",
       "libfabric uses EFA or fails: a silent fall-back to TCP is what this check exists to catch", kSbatchRecipe},
      {"FI_EFA_FORK_SAFE", "1", "fork() in a process with registered memory is safe; no effect from kernel 5.15",
       kCheatsheet},
  };
  if (std::find(kGpuDirect.begin(), kGpuDirect.end(), instance_type) != kGpuDirect.end())
    out.push_back({"FI_EFA_USE_DEVICE_RDMA", "1",
                   "GPUDirect RDMA; needed by aws-ofi-nccl before 1.7, harmless after on this type", kCheatsheet});
  out.push_back({"NCCL_SOCKET_IFNAME", "^docker,lo,veth",
                 "NCCL's bootstrap sockets stay off container and loopback interfaces", kDockerfile});
  return out;
}

std::vector<EnvSetting> open_mpi_environment() {
  return {
      {"OMPI_MCA_pml", "^ucx", "Open MPI's ob1 over TCP for collbench's own messages; EFA is NCCL's", kDockerfile},
      {"OMPI_MCA_btl_tcp_if_exclude", "lo,docker0,veth_def_agent", "MPI traffic stays off loopback and container "
                                                                    "interfaces", kDockerfile},
      {"PMIX_MCA_gds", "hash", "PMIx's hash store, which avoids a known shared-memory store error", kDockerfile},
  };
}

std::string shell_exports(const std::vector<EnvSetting>& env) {
  std::string out;
  for (const auto& e : env)
    out += fmt::format("# {}\n#   source: {}\nexport {}={}\n", e.why, e.source, e.name, shell_quote(e.value));
  return out;
}

}  // namespace collbench::launch
