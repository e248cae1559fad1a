// Verdicts on the environment every rank reported (reports/env/env_facts.h): pure, no I/O, no MPI.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/env/env_facts.h"
#include "reports/core/findings.h"
#include "reports/thresholds/thresholds.h"

namespace collbench::report {

struct AuditContext {
  std::string instance_type;               // "" when unknown
  std::optional<HardwareProfile> profile;  // from thresholds/<type>.json, when there is one
  bool efa_expected = false;               // the caller's call, normally efa_capable(instance_type)
  std::string backend;                     // "mpi" or "nccl"
  int gpus_per_process = 1;
};

// Findings, in this order (each check adds a PASS line when it ran and found nothing):
//   VERSION_INFO           INFO     the versions found (once)
//   NCCL_VERSION_MISMATCH  FAIL P0  NCCL version differs across ranks          (PASS NCCL_VERSION_CONSISTENT,
//                                   with the nccl backend only: the mpi backend does not use NCCL)
//   VERSION_MISMATCH       WARN P1  CUDA driver/runtime, MPI or libfabric differ (PASS VERSIONS_CONSISTENT)
//   ENV_MISMATCH           WARN P1  an NCCL_* / FI_* variable differs or is set on some ranks only
//                                   (one finding per variable; PASS ENV_CONSISTENT)
//   MEMLOCK_LOW            FAIL P0 on EFA instances, WARN P1 elsewhere           (PASS MEMLOCK_OK)
//   SHM_TOO_SMALL          FAIL P0 below 1 GiB, WARN P1 below 4 GiB              (PASS SHM_OK)
//   STACK_LIMIT            WARN P2  stack limit below 8192 KB                      (PASS STACK_OK)
//   UNKNOWN_INSTANCE       INFO     no instance type or no profile: absolute checks skipped
//   EFA_DEVICES_MISSING    FAIL P0  fewer EFA devices than the type has          (PASS EFA_DEVICES_OK)
//   OFI_PLUGIN_MISSING     FAIL P0  EFA instance, nccl backend, no aws-ofi-nccl library found
//                                   (PASS OFI_PLUGIN_FOUND)
//   GPU_COUNT_MISMATCH     FAIL P0  a node sees another number of GPUs than the type has; WARN P2
//                                   instead when CUDA_/NVIDIA_VISIBLE_DEVICES narrowed the view
//                                   (PASS GPU_COUNT_OK)
//   NCCL_DEBUG_ENABLED     WARN P2  the user left NCCL_DEBUG=INFO or TRACE on during a benchmark
//   then nccl_log_findings() for the ranks that carry a parsed NCCL log (its NCCL_VERSION_MISMATCH
//   is dropped when the reported versions already produced one).
// Known-bad version combinations (KNOWN_BAD_VERSIONS) are checked beside it, by
// reports/env/known_issue_verdicts.h, with the list the command loaded.
std::vector<Finding> audit_environment(const std::vector<RankEnv>& ranks, const AuditContext& ctx);

// The thresholds the audit applies, for tests and docs.
inline constexpr std::uint64_t kMinMemlockKb = 8388608;            // 8 GiB
inline constexpr std::uint64_t kShmFailBytes = 1ull << 30;         // 1 GiB
inline constexpr std::uint64_t kShmWarnBytes = 4ull << 30;         // 4 GiB
inline constexpr std::uint64_t kKubernetesShmBytes = 64ull << 20;  // Kubernetes' default /dev/shm
inline constexpr std::uint64_t kMinStackKb = 8192;

}  // namespace collbench::report
