// What each process found about its own environment: plain facts, gathered on every rank and judged
// on rank 0 by reports/env/env_audit.h. Nothing here talks to MPI or reads the machine.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace collbench::report {

// What one process's NCCL_DEBUG=INFO log says (see reports/env/nccl_log.h for the lines matched).
struct NcclLogFacts {
  std::string nccl_version;        // "2.18.3+cuda12.2"; only the rank that prints it (rank 0 of a comm)
  std::string network;             // "AWS Libfabric", "Libfabric", "Socket", "IB" or ""
  std::string ofi_plugin_version;  // "1.7.3-aws", "1.16.3"
  std::string ofi_provider;        // efa, tcp, sockets, "tcp;ofi_rxm"...
  std::string libfabric_version;   // "1.18"
  bool ofi_no_provider = false;
  bool ofi_getinfo_failed = false;
  bool reg_mr_failed = false;
  bool shm_extend_failed = false;
  bool system_error = false;
  bool cuda_error = false;
  std::vector<std::string> warnings;  // text after "NCCL WARN ", first ones only
};

struct RankEnv {
  int rank = 0;
  std::string host;
  std::string instance_type;                    // "" when not on EC2 or not known
  std::map<std::string, std::string> versions;  // nccl, cuda_driver, cuda_runtime, mpi, libfabric
  std::string ofi_plugin;                       // path of the aws-ofi-nccl plugin library found, or ""
  // NCCL_* and FI_* as set for this process, plus CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES
  // (the GPU-count check needs to know when visibility was narrowed on purpose).
  std::map<std::string, std::string> env;
  std::optional<std::uint64_t> memlock_kb;  // nullopt = unlimited
  std::optional<std::uint64_t> stack_kb;    // nullopt = unlimited
  std::uint64_t shm_bytes = 0;              // size of /dev/shm; 0 with an empty type = not measured
  std::string shm_type;                     // tmpfs, ...
  int efa_devices = 0;
  int gpus_visible = 0;
  std::string gpu_error;  // CUDA's error where /dev/nvidia* exist and CUDA sees no GPU; "" otherwise
  std::optional<NcclLogFacts> nccl_log;
};

// The wire form gathered to rank 0 (defined in reports/env/env_audit.cpp). Unlimited limits are null;
// missing keys read back as the defaults above.
nlohmann::json to_json(const RankEnv& env);
RankEnv rank_env_from_json(const nlohmann::json& j);

}  // namespace collbench::report
