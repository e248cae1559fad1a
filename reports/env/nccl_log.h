// Reading NCCL_DEBUG=INFO output: the lines NCCL and aws-ofi-nccl really print (see
// /work/shared/finding-scheme.md, "What the real logs say"), and the findings they support.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reports/env/env_facts.h"
#include "reports/core/findings.h"

namespace collbench::report {

// Facts from one process's log. Matches by substring, so launcher prefixes ("[1,0]<stdout>:",
// srun's " 0: ") and NCCL's timestamp and host:pid:tid prefixes need no stripping. Lines:
//   "NCCL version 2.x.y+cudaA.B"                  -> nccl_version (first seen)
//   "Using network <name>"                        -> network (first seen)
//   "NET/OFI Initializing aws-ofi-nccl <ver>",
//   "NET/OFI Using aws-ofi-nccl <ver>" (old)      -> ofi_plugin_version
//   "NET/OFI Using Libfabric version X.Y"         -> libfabric_version
//   "Selected Provider is efa (found N nics)",
//   "Selected provider is efa, fabric is efa ..." -> ofi_provider (case-insensitive)
//   "No eligible providers were found"            -> ofi_no_provider
//   "fi_getinfo() call failed"                    -> ofi_getinfo_failed
//   "ibv_reg_mr failed", "Unable to register memory" -> reg_mr_failed
//   "failed to extend /dev/shm"                   -> shm_extend_failed
//   "unhandled system error"                      -> system_error
//   "unhandled cuda error", "NCCL WARN Cuda failure" -> cuda_error
//   "NCCL WARN <text>"                            -> warnings (the first 32)
NcclLogFacts parse_nccl_log(std::string_view text);

// Splits a combined launcher log (mpirun --tag-output "[1,N]<stdout>:" or srun -l "N: ") into each
// rank's lines, prefixes removed, ranks in increasing order. Lines without a rank label are left out.
std::vector<std::pair<int, std::string>> split_log_by_rank(std::string_view text);

// Findings from every rank's log facts (rank, facts):
//   EFA_TCP_FALLBACK      FAIL P0  "Using network Socket" or a tcp/sockets OFI provider where EFA is expected
//   OFI_LOAD_FAIL         FAIL P0  no eligible provider / fi_getinfo failed and no provider selected (EFA expected)
//   RDMA_REG_FAIL         FAIL P0  ibv_reg_mr / OFI memory registration failed
//   SHM_FULL              FAIL P0  /dev/shm could not be extended
//   SYSTEM_ERROR          FAIL P0  "unhandled system error"
//   CUDA_ERROR            FAIL P0  "unhandled cuda error" / "Cuda failure"
//   NCCL_VERSION_MISMATCH FAIL P0  the ranks that print a version print different ones
//   NET_TRANSPORT         INFO     the network NCCL chose, with plugin, libfabric and provider
// Subjects: the first four are the nodes of the ranks named, SYSTEM_ERROR and CUDA_ERROR those
// ranks, the last two the world; hosts are left empty (a log's facts carry none).
std::vector<Finding> nccl_log_findings(const std::vector<std::pair<int, NcclLogFacts>>& per_rank, bool efa_expected);

// "rank 3", "ranks 0-7,9,12-13" (sorted, duplicates removed); "" for none.
std::string describe_ranks(std::vector<int> ranks);

}  // namespace collbench::report
