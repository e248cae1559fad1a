// The reference pointers findings print (finding-scheme.md): one place for each, spelled exactly as
// the hyperpod-nccl skill's pages head their sections; each resolves to docs/references/<file>.md.
#pragma once

#include <array>

namespace collbench::report::ref {

inline constexpr const char* kTimeoutHang = "references/debugging-guide.md \u00a7 1 NCCL Timeout / Rendezvous Hang";
inline constexpr const char* kEfaConfig = "references/debugging-guide.md \u00a7 6 EFA Configuration";
inline constexpr const char* kHardware = "references/debugging-guide.md \u00a7 7 Node Hardware Failures";
inline constexpr const char* kVersionMismatch = "references/debugging-guide.md \u00a7 10 NCCL Version Mismatch";
inline constexpr const char* kTcpFallback = "references/debugging-guide.md \u00a7 13 EFA TCP Fallback";
inline constexpr const char* kStaleShm = "references/debugging-guide.md \u00a7 15 Stale Shared Memory";
inline constexpr const char* kMemlock = "references/debugging-guide.md \u00a7 17 RDMA Memory Registration Failure";
inline constexpr const char* kAdvancedTuning = "references/debugging-guide.md \u00a7 19 Advanced NCCL Tuning (NVLS, PXN, Topology, Cross-NIC)";
inline constexpr const char* kEnvVars = "references/operations.md \u00a7 7 Environment Variable Quick Reference";
inline constexpr const char* kErrorPatterns = "references/error-patterns-quick-ref.md";
inline constexpr const char* kSingleNode = "references/performance-testing.md \u00a7 Single-Node Baseline Test";
inline constexpr const char* kMultiNode = "references/performance-testing.md \u00a7 Multi-Node AllReduce Test";
inline constexpr const char* kDebugImpact = "references/performance-testing.md \u00a7 NCCL_DEBUG=INFO Performance Impact";
inline constexpr const char* kStraggler = "references/performance-testing.md \u00a7 Straggler Node \u2014 Detection and Replacement";
inline constexpr const char* kPairwise = "references/performance-testing.md \u00a7 Pairwise Bandwidth Test (identify slow pairs)";

// Every pointer above, for the test that each resolves to a section of docs/references/.
inline constexpr std::array kAll{kTimeoutHang, kEfaConfig,  kHardware,     kVersionMismatch, kTcpFallback,
                                 kStaleShm,    kMemlock,    kAdvancedTuning, kEnvVars,       kErrorPatterns,
                                 kSingleNode,  kMultiNode,  kDebugImpact,  kStraggler,       kPairwise};

}  // namespace collbench::report::ref
