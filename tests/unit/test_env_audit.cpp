#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "bench/mpi_check.h"
#include "launcher/probes/env_collect.h"
#include "reports/env/env_audit.h"
#include "reports/thresholds/instance_types.h"
#include "reports/env/nccl_log.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

RankEnv healthy(int rank, const std::string& host) {
  RankEnv e;
  e.rank = rank;
  e.host = host;
  e.instance_type = "p4d.24xlarge";
  e.versions = {{"nccl", "2.18.3"},
                {"cuda_driver", "12.2"},
                {"cuda_runtime", "12.2"},
                {"mpi", "Open MPI v4.1.4"},
                {"libfabric", "1.18"}};
  e.ofi_plugin = "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so";
  e.env = {{"FI_PROVIDER", "efa"}, {"NCCL_PROTO", "simple"}};
  e.memlock_kb = std::nullopt;
  e.stack_kb = 8192;
  e.shm_bytes = 96ull << 30;
  e.shm_type = "tmpfs";
  e.efa_devices = 4;
  e.gpus_visible = 8;
  return e;
}

// Two p4d nodes, one process per node.
std::vector<RankEnv> cluster() { return {healthy(0, "node-a"), healthy(8, "node-b")}; }

AuditContext p4d() {
  AuditContext c;
  c.instance_type = "p4d.24xlarge";
  c.profile = HardwareProfile{8, "A100 40GB", 4, 400, "test"};
  c.efa_expected = true;
  c.backend = "nccl";
  return c;
}

std::vector<const Finding*> all(const std::vector<Finding>& fs, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : fs)
    if (f.code == code) out.push_back(&f);
  return out;
}

// A copy, so that it outlives the temporary vector of findings it came from.
bool has(const std::optional<Finding>& f, const std::string& text) {
  return f && f->message.find(text) != std::string::npos;
}

}  // namespace

// ---- a healthy cluster ----

TEST(EnvAudit, HealthyClusterPassesEveryCheck) {
  const auto fs = audit_environment(cluster(), p4d());
  for (const auto& f : fs) EXPECT_TRUE(f.tag == Tag::Pass || f.tag == Tag::Info) << render_finding(f, false);
  for (const char* code : {"NCCL_VERSION_CONSISTENT", "VERSIONS_CONSISTENT", "ENV_CONSISTENT", "MEMLOCK_OK", "SHM_OK",
                           "STACK_OK", "EFA_DEVICES_OK", "OFI_PLUGIN_FOUND", "GPU_COUNT_OK"})
    EXPECT_TRUE(find(fs, code)) << code;
  EXPECT_EQ(all(fs, "VERSION_INFO").size(), 1u);
  EXPECT_FALSE(find(fs, "UNKNOWN_INSTANCE"));
  EXPECT_EQ(exit_code_for(fs), 0);
}

TEST(EnvAudit, NothingToAuditWithoutRanks) { EXPECT_TRUE(audit_environment({}, p4d()).empty()); }

// ---- versions ----

TEST(EnvAudit, VersionInfoOnceWithTheVersions) {
  const auto fs = audit_environment(cluster(), p4d());
  const auto f = find(fs, "VERSION_INFO");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Info);
  EXPECT_TRUE(has(f, "NCCL 2.18.3")) << f->message;
  EXPECT_TRUE(has(f, "MPI Open MPI v4.1.4")) << f->message;
  EXPECT_EQ(fs.front().code, "VERSION_INFO");  // first, as the context for what follows
}

TEST(EnvAudit, NcclVersionMismatch) {
  auto ranks = cluster();
  ranks[1].versions["nccl"] = "2.19.3";
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "NCCL_VERSION_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 10 NCCL Version Mismatch");
  EXPECT_TRUE(has(f, "2.18.3 on host node-a (rank 0)")) << f->message;
  EXPECT_TRUE(has(f, "2.19.3 on host node-b (rank 8)")) << f->message;
  EXPECT_FALSE(find(fs, "NCCL_VERSION_CONSISTENT"));
  EXPECT_FALSE(find(audit_environment(cluster(), p4d()), "NCCL_VERSION_MISMATCH"));
}

// The mpi backend never uses NCCL, though a CUDA build links it: no PASS about NCCL for it; and with
// no NCCL on any rank, nothing about NCCL at all.
TEST(EnvAudit, NoNcclPassWhereNcclWasNotUsed) {
  AuditContext mpi = p4d();
  mpi.backend = "mpi";
  const auto linked = audit_environment(cluster(), mpi);
  EXPECT_FALSE(find(linked, "NCCL_VERSION_CONSISTENT"));
  EXPECT_FALSE(find(linked, "NCCL_VERSION_MISMATCH"));
  EXPECT_TRUE(find(linked, "VERSIONS_CONSISTENT"));

  auto ranks = cluster();
  for (auto& r : ranks) r.versions.erase("nccl");
  for (const AuditContext& ctx : {mpi, p4d()}) {
    const auto fs = audit_environment(ranks, ctx);
    for (const auto& f : fs) EXPECT_EQ(f.code.find("NCCL_VERSION"), std::string::npos) << render_finding(f, false);
    EXPECT_FALSE(has(find(fs, "VERSION_INFO"), "NCCL")) << find(fs, "VERSION_INFO")->message;
  }
}

// Different NCCL builds are still a FAIL whatever the backend, and other versions a WARN.
TEST(EnvAudit, DifferingVersionsStillFailOrWarnWithEitherBackend) {
  auto ranks = cluster();
  ranks[1].versions["nccl"] = "2.19.3";
  ranks[1].versions["mpi"] = "Open MPI v5.0.3";
  for (const char* backend : {"nccl", "mpi"}) {
    SCOPED_TRACE(backend);
    AuditContext ctx = p4d();
    ctx.backend = backend;
    const auto fs = audit_environment(ranks, ctx);
    const auto nccl = find(fs, "NCCL_VERSION_MISMATCH");
    ASSERT_TRUE(nccl);
    EXPECT_EQ(nccl->tag, Tag::Fail);
    EXPECT_EQ(nccl->priority, Priority::P0);
    const auto other = find(fs, "VERSION_MISMATCH");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->tag, Tag::Warn);
    EXPECT_TRUE(has(other, "MPI Open MPI v4.1.4 on host node-a (rank 0), Open MPI v5.0.3 on host node-b (rank 8)"))
        << other->message;
    EXPECT_FALSE(find(fs, "NCCL_VERSION_CONSISTENT"));
    EXPECT_FALSE(find(fs, "VERSIONS_CONSISTENT"));
  }
}

TEST(EnvAudit, OtherVersionMismatch) {
  auto ranks = cluster();
  ranks[1].versions["cuda_driver"] = "12.4";
  const auto f = find(audit_environment(ranks, p4d()), "VERSION_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P1);
  EXPECT_TRUE(has(f, "CUDA driver 12.2 on host node-a (rank 0), 12.4 on host node-b (rank 8)")) << f->message;
  EXPECT_FALSE(find(audit_environment(cluster(), p4d()), "VERSION_MISMATCH"));
}

TEST(EnvAudit, LogVersionMismatchIsNotReportedTwice) {
  auto ranks = cluster();
  ranks[1].versions["nccl"] = "2.19.3";
  ranks[0].nccl_log = parse_nccl_log("NCCL version 2.18.3+cuda12.2\n");
  ranks[1].nccl_log = parse_nccl_log("NCCL version 2.19.3+cuda12.2\n");
  EXPECT_EQ(all(audit_environment(ranks, p4d()), "NCCL_VERSION_MISMATCH").size(), 1u);
}

// ---- environment variables ----

TEST(EnvAudit, EnvMismatchWhenSetOnSomeRanksOnly) {
  auto ranks = cluster();
  ranks[1].env.erase("NCCL_PROTO");
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "ENV_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P1);
  EXPECT_EQ(f->reference, "references/operations.md \u00a7 7 Environment Variable Quick Reference");
  EXPECT_TRUE(has(f, "NCCL_PROTO=simple on host node-a (rank 0), unset on host node-b (rank 8)")) << f->message;
  EXPECT_FALSE(find(fs, "ENV_CONSISTENT"));
}

TEST(EnvAudit, EnvMismatchWhenValuesDiffer) {
  auto ranks = cluster();
  ranks[1].env["FI_PROVIDER"] = "tcp";
  const auto f = find(audit_environment(ranks, p4d()), "ENV_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_TRUE(has(f, "FI_PROVIDER=efa on host node-a (rank 0), FI_PROVIDER=tcp on host node-b (rank 8)")) << f->message;
}

TEST(EnvAudit, ManyDifferingVariablesMakeOneFinding) {
  auto ranks = cluster();
  for (const char* k : {"NCCL_A", "NCCL_B", "NCCL_C", "NCCL_D", "FI_E"}) ranks[0].env[k] = "1";
  const auto fs = audit_environment(ranks, p4d());
  const auto v = all(fs, "ENV_MISMATCH");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0]->message.find("5 variables differ"), std::string::npos) << v[0]->message;
}

TEST(EnvAudit, PerRankVariablesAreNotAMismatch) {
  auto ranks = cluster();
  ranks[0].env["NCCL_DEBUG_FILE"] = "/tmp/nccl_rank0.log";
  ranks[1].env["NCCL_DEBUG_FILE"] = "/tmp/nccl_rank8.log";
  ranks[0].env["CUDA_VISIBLE_DEVICES"] = "0";
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_FALSE(find(fs, "ENV_MISMATCH"));
  EXPECT_TRUE(find(fs, "ENV_CONSISTENT"));
}

// ---- limits and /dev/shm ----

TEST(EnvAudit, MemlockLowFailsOnEfaInstances) {
  auto ranks = cluster();
  ranks[0].memlock_kb = 64;
  ranks[1].memlock_kb = 64;
  const auto f = find(audit_environment(ranks, p4d()), "MEMLOCK_LOW");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 17 RDMA Memory Registration Failure");
  EXPECT_TRUE(has(f, "64 KB on hosts node-a, node-b (ranks 0,8)")) << f->message;
  EXPECT_TRUE(has(f, "8388608 KB")) << f->message;
}

TEST(EnvAudit, MemlockLowIsOnlyNotedWithoutEfa) {
  auto ranks = cluster();
  ranks[1].memlock_kb = 65536;
  AuditContext ctx = p4d();
  ctx.efa_expected = false;
  const auto f = find(audit_environment(ranks, ctx), "MEMLOCK_LOW");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Info);
  EXPECT_EQ(f->priority, Priority::None);
  EXPECT_TRUE(has(f, "65536 KB on host node-b (rank 8)")) << f->message;
}

TEST(EnvAudit, MemlockAtTheThresholdOrUnlimitedPasses) {
  auto ranks = cluster();
  ranks[0].memlock_kb = kMinMemlockKb;
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_FALSE(find(fs, "MEMLOCK_LOW"));
  EXPECT_TRUE(find(fs, "MEMLOCK_OK"));
}

TEST(EnvAudit, ShmBelowOneGiBFailsAndNamesTheKubernetesDefault) {
  auto ranks = cluster();
  ranks[1].shm_bytes = kKubernetesShmBytes;
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "SHM_TOO_SMALL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 15 Stale Shared Memory");
  EXPECT_TRUE(has(f, "/dev/shm is 64 MiB (tmpfs) on host node-b (rank 8)")) << f->message;
  EXPECT_TRUE(has(f, "Kubernetes")) << f->message;
  EXPECT_FALSE(find(fs, "SHM_OK"));
}

TEST(EnvAudit, ShmBelowFourGiBWarns) {
  auto ranks = cluster();
  ranks[0].shm_bytes = 2ull << 30;
  const auto f = find(audit_environment(ranks, p4d()), "SHM_TOO_SMALL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P1);
  EXPECT_TRUE(has(f, "2 GiB (tmpfs)")) << f->message;
  EXPECT_FALSE(has(f, "Kubernetes"));
}

TEST(EnvAudit, UnmeasuredShmIsNotJudged) {
  auto ranks = cluster();
  for (auto& r : ranks) {
    r.shm_bytes = 0;
    r.shm_type.clear();
  }
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_FALSE(find(fs, "SHM_TOO_SMALL"));
  EXPECT_FALSE(find(fs, "SHM_OK"));
}

TEST(EnvAudit, StackLimit) {
  auto ranks = cluster();
  ranks[0].stack_kb = 4096;
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "STACK_LIMIT");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P2);
  EXPECT_TRUE(has(f, "4096 KB on host node-a (rank 0)")) << f->message;
  ranks[0].stack_kb = std::nullopt;  // unlimited
  EXPECT_FALSE(find(audit_environment(ranks, p4d()), "STACK_LIMIT"));
}

// ---- hardware ----

TEST(EnvAudit, EfaDevicesMissing) {
  auto ranks = cluster();
  ranks[1].efa_devices = 0;
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "EFA_DEVICES_MISSING");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 6 EFA Configuration");
  EXPECT_TRUE(has(f, "host node-b sees 0 of 4")) << f->message;
  EXPECT_FALSE(has(f, "node-a")) << f->message;
  EXPECT_FALSE(find(fs, "EFA_DEVICES_OK"));
}

TEST(EnvAudit, EfaDevicesNotJudgedWhereEfaIsNotExpected) {
  auto ranks = cluster();
  for (auto& r : ranks) r.efa_devices = 0;
  AuditContext ctx = p4d();
  ctx.efa_expected = false;
  const auto fs = audit_environment(ranks, ctx);
  EXPECT_FALSE(find(fs, "EFA_DEVICES_MISSING"));
  EXPECT_FALSE(find(fs, "EFA_DEVICES_OK"));
}

TEST(EnvAudit, EfaDevicesWithoutProfileNeedAtLeastOne) {
  auto ranks = cluster();
  for (auto& r : ranks) r.efa_devices = 1;
  AuditContext ctx = p4d();
  ctx.profile.reset();
  EXPECT_FALSE(find(audit_environment(ranks, ctx), "EFA_DEVICES_MISSING"));
  ranks[0].efa_devices = 0;
  EXPECT_TRUE(has(find(audit_environment(ranks, ctx), "EFA_DEVICES_MISSING"), "expected at least one"));
}

TEST(EnvAudit, OfiPluginMissing) {
  auto ranks = cluster();
  for (auto& r : ranks) r.ofi_plugin.clear();
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "OFI_PLUGIN_MISSING");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 6 EFA Configuration");
  EXPECT_TRUE(has(f, "hosts node-a, node-b (ranks 0,8)")) << f->message;
}

TEST(EnvAudit, NoOfiPluginMissingWhenTheLogShowsItOrBackendIsMpi) {
  auto ranks = cluster();
  for (auto& r : ranks) {
    r.ofi_plugin.clear();
    r.nccl_log = parse_nccl_log("h:1:1 [0] NCCL INFO Using network Libfabric\n");
  }
  EXPECT_FALSE(find(audit_environment(ranks, p4d()), "OFI_PLUGIN_MISSING"));
  for (auto& r : ranks) r.nccl_log.reset();
  AuditContext ctx = p4d();
  ctx.backend = "mpi";
  EXPECT_FALSE(find(audit_environment(ranks, ctx), "OFI_PLUGIN_MISSING"));
}

TEST(EnvAudit, GpuCountMismatch) {
  auto ranks = cluster();
  ranks[1].gpus_visible = 7;
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "GPU_COUNT_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 7 Node Hardware Failures");
  EXPECT_TRUE(has(f, "host node-b sees 7 of 8")) << f->message;
  EXPECT_FALSE(find(fs, "GPU_COUNT_OK"));
}

// --backend auto on a node whose GPU the driver shows and CUDA cannot use: the run falls back to
// host MPI, and the verdict must say why, naming the node and CUDA's error.
TEST(EnvAudit, GpuThatCudaCannotUseIsAFailNamingTheErrorAndTheNode) {
  auto ranks = cluster();
  ranks[1].gpus_visible = 0;
  ranks[1].gpu_error = "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version";
  AuditContext ctx = p4d();
  ctx.backend = "mpi";
  const auto fs = audit_environment(ranks, ctx);
  ASSERT_EQ(all(fs, "CUDA_ERROR").size(), 1u);
  const auto f = find(fs, "CUDA_ERROR");
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 7 Node Hardware Failures");
  EXPECT_TRUE(has(f, "host node-b (rank 8)")) << f->message;
  EXPECT_TRUE(has(f, "cudaErrorInsufficientDriver")) << f->message;
  EXPECT_TRUE(has(f, "measured host MPI, not NCCL")) << f->message;
  EXPECT_EQ(f->subject.hosts, std::vector<std::string>{"node-b"});
  // A node without GPUs at all (no device files, so no error) is no finding.
  ranks[1].gpu_error.clear();
  EXPECT_FALSE(find(audit_environment(ranks, ctx), "CUDA_ERROR"));
}

TEST(EnvAudit, NarrowedGpuVisibilityIsOnlyAdvisory) {
  auto ranks = cluster();
  ranks[1].gpus_visible = 1;
  ranks[1].env["NVIDIA_VISIBLE_DEVICES"] = "GPU-1234";
  const auto f = find(audit_environment(ranks, p4d()), "GPU_COUNT_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P2);
}

TEST(EnvAudit, GpuCountNotJudgedForMpiBackendOrWithoutProfile) {
  auto ranks = cluster();
  ranks[1].gpus_visible = 0;
  AuditContext mpi = p4d();
  mpi.backend = "mpi";
  EXPECT_FALSE(find(audit_environment(ranks, mpi), "GPU_COUNT_MISMATCH"));
  AuditContext bare = p4d();
  bare.profile.reset();
  EXPECT_FALSE(find(audit_environment(ranks, bare), "GPU_COUNT_MISMATCH"));
}

TEST(EnvAudit, NcclDebugLeftOn) {
  auto ranks = cluster();
  for (auto& r : ranks) r.env["NCCL_DEBUG"] = "INFO";
  const auto fs = audit_environment(ranks, p4d());
  const auto f = find(fs, "NCCL_DEBUG_ENABLED");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P2);
  EXPECT_EQ(f->reference, "references/performance-testing.md \u00a7 NCCL_DEBUG=INFO Performance Impact");
  EXPECT_TRUE(has(f, "NCCL_DEBUG=INFO")) << f->message;
  for (auto& r : ranks) r.env["NCCL_DEBUG"] = "WARN";
  EXPECT_FALSE(find(audit_environment(ranks, p4d()), "NCCL_DEBUG_ENABLED"));
}

TEST(EnvAudit, UnknownInstance) {
  AuditContext ctx;
  ctx.backend = "nccl";
  const auto f = find(audit_environment(cluster(), ctx), "UNKNOWN_INSTANCE");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Info);
  EXPECT_TRUE(has(f, "instance type unknown")) << f->message;

  ctx.instance_type = "p3.2xlarge";
  EXPECT_TRUE(has(find(audit_environment(cluster(), ctx), "UNKNOWN_INSTANCE"), "no hardware profile for p3.2xlarge"));
  EXPECT_FALSE(find(audit_environment(cluster(), p4d()), "UNKNOWN_INSTANCE"));
}

TEST(EnvAudit, CarriesTheNcclLogFindings) {
  auto ranks = cluster();
  for (auto& r : ranks) r.nccl_log = parse_nccl_log("h:1:1 [0] NCCL INFO Using network Socket\n");
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_TRUE(has(find(fs, "EFA_TCP_FALLBACK"), "ranks 0,8"));
  EXPECT_TRUE(find(fs, "NET_TRANSPORT"));
  EXPECT_FALSE(find(audit_environment(cluster(), p4d()), "NET_TRANSPORT"));  // no logs, no transport line
}

TEST(EnvAudit, JsonRoundTrip) {
  RankEnv e = healthy(3, "node-c");
  e.memlock_kb = 64;
  e.stack_kb = std::nullopt;
  e.nccl_log = parse_nccl_log("NCCL version 2.18.3+cuda12.2\nh:1:1 [0] NCCL WARN Cuda failure 'x'\n");
  const nlohmann::json j = to_json(e);
  EXPECT_TRUE(j.at("stack_kb").is_null());
  const RankEnv back = rank_env_from_json(nlohmann::json::parse(j.dump()));
  EXPECT_EQ(back.rank, 3);
  EXPECT_EQ(back.host, "node-c");
  EXPECT_EQ(back.versions, e.versions);
  EXPECT_EQ(back.env, e.env);
  EXPECT_EQ(back.memlock_kb, std::optional<std::uint64_t>(64));
  EXPECT_EQ(back.stack_kb, std::nullopt);
  EXPECT_EQ(back.shm_bytes, e.shm_bytes);
  EXPECT_EQ(back.efa_devices, 4);
  ASSERT_TRUE(back.nccl_log);
  EXPECT_EQ(back.nccl_log->nccl_version, "2.18.3+cuda12.2");
  EXPECT_TRUE(back.nccl_log->cuda_error);
  EXPECT_EQ(back.nccl_log->warnings, e.nccl_log->warnings);
  EXPECT_FALSE(rank_env_from_json(nlohmann::json::object()).nccl_log);
}

// ---- instance types ----

TEST(InstanceTypes, EfaCapableSizes) {
  for (const char* t : {"p4d.24xlarge",     "p4de.24xlarge",      "p5.48xlarge",    "p5e.48xlarge",    "p5en.48xlarge",
                        "p6-b200.48xlarge", "p6e-gb200.36xlarge", "p3dn.24xlarge",  "g4dn.8xlarge",    "g4dn.12xlarge",
                        "g4dn.16xlarge",    "g4dn.metal",         "g5.48xlarge",    "g6e.48xlarge",    "gr6.8xlarge",
                        "trn1.32xlarge",    "trn1n.32xlarge",     "trn2.48xlarge",  "dl1.24xlarge",    "dl2q.24xlarge",
                        "c5n.18xlarge",     "c5n.metal",          "c6gn.16xlarge",  "c6in.32xlarge",   "c7gn.16xlarge",
                        "c7i.48xlarge",     "c7i.metal-48xl",     "hpc6a.48xlarge", "hpc6id.32xlarge", "hpc7a.96xlarge",
                        "hpc7g.4xlarge",    "m5dn.24xlarge",      "m5n.metal",      "m6i.32xlarge",    "m6in.32xlarge",
                        "r5dn.24xlarge",    "r5n.24xlarge",       "P5.48XLARGE"})
    EXPECT_TRUE(efa_capable(t)) << t;
}

TEST(InstanceTypes, NotEfaCapable) {
  for (const char* t : {"g4dn.xlarge", "g4dn.4xlarge", "g5.xlarge", "trn1.2xlarge", "inf2.48xlarge", "c5n.4xlarge",
                        "c7i.metal-24xl", "m5.24xlarge", "t3.micro", "c5.metal", "", "p4d", "Standard PC"})
    EXPECT_FALSE(efa_capable(t)) << t;
}

TEST(InstanceTypes, Family) {
  EXPECT_EQ(instance_family("p4d.24xlarge"), "p4d");
  EXPECT_EQ(instance_family("p6-b200.48xlarge"), "p6-b200");
  EXPECT_EQ(instance_family("u7i-12tb.224xlarge"), "u7i-12tb");
  EXPECT_EQ(instance_family("p4d"), "");
  EXPECT_EQ(instance_family(""), "");
}

TEST(InstanceTypes, RecognisesTypeNames) {
  for (const char* t : {"p4d.24xlarge", "c7i.metal-48xl", "g4dn.metal", "u7i-12tb.224xlarge", "t3.micro"})
    EXPECT_TRUE(looks_like_instance_type(t)) << t;
  for (const char* t : {"Standard PC (Q35 + ICH9, 2009)", "HVM domU", "", "p4d", "p4d.huge", "KVM"})
    EXPECT_FALSE(looks_like_instance_type(t)) << t;
}

}  // namespace collbench::report

// ---- the collector, on this machine and on fake trees ----

namespace collbench {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path =
        fs::temp_directory_path() / ("collbench-env-" + std::to_string(getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((path / name).parent_path());
    std::ofstream(path / name) << text;
  }
};

// An infiniband class dir: efa_0 by name, rdmap0s6 bound to the efa driver, mlx5_0 not EFA.
void fake_ib(const fs::path& root, const std::vector<std::pair<std::string, std::string>>& devices) {
  for (const auto& [name, driver] : devices) {
    fs::create_directories(root / "ib" / name / "device");
    fs::create_directories(root / "drivers" / driver);
    fs::create_symlink(root / "drivers" / driver, root / "ib" / name / "device" / "driver");
  }
}

struct EnvGuard {  // restores the variables a test sets
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  explicit EnvGuard(std::initializer_list<const char*> names) {
    for (const char* n : names) {
      const char* v = std::getenv(n);
      saved.emplace_back(n, v ? std::optional<std::string>(v) : std::nullopt);
    }
  }
  ~EnvGuard() {
    for (const auto& [n, v] : saved) v ? setenv(n.c_str(), v->c_str(), 1) : unsetenv(n.c_str());
  }
};

}  // namespace

TEST(EnvAuditCollect, SmokeOnThisMachine) {
  TempDir tmp;
  CollectOptions o;
  o.infiniband_dir = (tmp.path / "no-infiniband").string();
  o.efa_retries = 0;
  const report::RankEnv e = collect_local_env(5, o);
  EXPECT_EQ(e.rank, 5);
  EXPECT_EQ(e.host, this_host());
  EXPECT_EQ(e.efa_devices, 0);
  EXPECT_GE(e.gpus_visible, 0);
  EXPECT_FALSE(e.versions.at("mpi").empty());
  EXPECT_TRUE(e.instance_type.empty() || report::looks_like_instance_type(e.instance_type));
  rlimit rl{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
  if (rl.rlim_cur == RLIM_INFINITY) {
    EXPECT_FALSE(e.memlock_kb);
  } else {
    EXPECT_EQ(e.memlock_kb, std::optional<std::uint64_t>(rl.rlim_cur / 1024));
  }
  if (fs::exists("/dev/shm")) {
    EXPECT_GT(e.shm_bytes, 0u);
  }
  for (const auto& [k, v] : e.env)
    EXPECT_TRUE(k.rfind("NCCL_", 0) == 0 || k.rfind("FI_", 0) == 0 || k == "CUDA_VISIBLE_DEVICES" ||
                k == "NVIDIA_VISIBLE_DEVICES")
        << k;
  // Survives the trip to rank 0.
  EXPECT_EQ(report::rank_env_from_json(report::to_json(e)).host, e.host);
}

TEST(EnvAuditCollect, CountsEfaDevicesByNameOrDriver) {
  TempDir tmp;
  fake_ib(tmp.path, {{"efa_0", "efa"}, {"rdmap16s27", "efa"}, {"mlx5_0", "mlx5_core"}});
  EXPECT_EQ(count_efa_devices((tmp.path / "ib").string()), 2);
  EXPECT_EQ(count_efa_devices((tmp.path / "missing").string()), 0);
}

TEST(EnvAuditCollect, RetriesWhenEfaDevicesComeUpLate) {
  TempDir tmp;
  fake_ib(tmp.path, {{"rdmap0s1", "efa"}});
  CollectOptions o;
  o.infiniband_dir = (tmp.path / "ib").string();
  o.expected_efa_devices = 2;
  o.efa_retries = 5;
  o.efa_retry_interval = std::chrono::milliseconds(100);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    fs::create_directories(tmp.path / "ib" / "efa_1");
  });
  const auto e = collect_local_env(0, o);
  late.join();
  EXPECT_EQ(e.efa_devices, 2);

  o.efa_retry_interval = std::chrono::milliseconds(0);
  o.expected_efa_devices = 8;  // never reached: gives up after the retries
  EXPECT_EQ(collect_local_env(0, o).efa_devices, 2);
}

TEST(EnvAuditCollect, InstanceTypeFromDmi) {
  TempDir tmp;
  tmp.write("ec2", "p4d.24xlarge\n");
  tmp.write("qemu", "Standard PC (Q35 + ICH9, 2009)\n");
  EXPECT_EQ(read_instance_type((tmp.path / "ec2").string()), "p4d.24xlarge");
  EXPECT_EQ(read_instance_type((tmp.path / "qemu").string()), "");
  EXPECT_EQ(read_instance_type((tmp.path / "missing").string()), "");
}

TEST(EnvAuditCollect, FindsTheOfiPlugin) {
  TempDir tmp;
  tmp.write("a/libnccl-net-ofi.so", "");
  tmp.write("b/libnccl-net-aws-ofi.so", "");
  const std::vector<std::string> dirs = {(tmp.path / "empty").string(), (tmp.path / "a").string(),
                                         (tmp.path / "b").string()};
  EXPECT_EQ(find_ofi_plugin("", dirs), (tmp.path / "a" / "libnccl-net-ofi.so").string());
  EXPECT_EQ(find_ofi_plugin("aws-ofi", dirs), (tmp.path / "b" / "libnccl-net-aws-ofi.so").string());
  EXPECT_EQ(find_ofi_plugin("none", dirs), "");
  EXPECT_EQ(find_ofi_plugin("gIB", dirs), "");
  EXPECT_EQ(find_ofi_plugin("", {(tmp.path / "empty").string()}), "");
  EXPECT_FALSE(plugin_search_dirs().empty());
}

TEST(EnvAuditCollect, MountType) {
  TempDir tmp;
  tmp.write("mounts",
            "proc /proc proc rw 0 0\nshm /dev/shm tmpfs rw,size=65536k 0 0\nnone /dev/shm hugetlbfs rw 0 0\n");
  EXPECT_EQ(mount_type("/dev/shm", (tmp.path / "mounts").string()), "hugetlbfs");  // the last mount wins
  EXPECT_EQ(mount_type("/mnt", (tmp.path / "mounts").string()), "");
}

TEST(EnvAuditCollect, NcclLogPathFollowsNcclsExpansion) {
  EXPECT_EQ(nccl_log_path("/tmp/x", "ip-10-0-0-1.ec2.internal", 42), "/tmp/x/collbench-nccl.ip-10-0-0-1.42.log");
  EXPECT_EQ(nccl_log_path("/d", "a%b/c", 7), "/d/collbench-nccl.a-b-c.7.log");
}

namespace {
// Collected at once: no second look for late EFA devices.
CollectOptions without_efa_retries() {
  CollectOptions o;
  o.efa_retries = 0;
  return o;
}
}  // namespace

TEST(EnvAuditCollect, CapturesAndReadsTheNcclLog) {
  EnvGuard guard{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "COLLBENCH_NCCL_DEBUG_CAPTURE"};
  unsetenv("NCCL_DEBUG");
  unsetenv("COLLBENCH_NCCL_DEBUG_CAPTURE");
  EXPECT_FALSE(read_nccl_debug_capture());  // nothing prepared

  TempDir tmp;
  const std::string dir = (tmp.path / "logs").string();
  prepare_nccl_debug_capture(dir);
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "INFO");
  EXPECT_STREQ(std::getenv("NCCL_DEBUG_SUBSYS"), "INIT,NET");
  EXPECT_EQ(std::string(std::getenv("NCCL_DEBUG_FILE")), dir + "/collbench-nccl.%h.%p.log");
  EXPECT_FALSE(collect_local_env(0, without_efa_retries()).env.count("NCCL_DEBUG"));  // ours, not the user's

  EXPECT_FALSE(read_nccl_debug_capture());  // NCCL has not written yet
  const std::string path = nccl_log_path(dir, this_host(), static_cast<int>(getpid()));
  std::ofstream(path) << "h:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\nh:1:1 [0] NCCL INFO Using network Socket\n";
  const auto facts = read_nccl_debug_capture();
  ASSERT_TRUE(facts);
  EXPECT_EQ(facts->nccl_version, "2.18.3+cuda12.2");
  EXPECT_EQ(facts->network, "Socket");
  EXPECT_FALSE(fs::exists(path));  // removed after reading
}

TEST(EnvAuditCollect, UserNcclDebugIsLeftAlone) {
  EnvGuard guard{"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "COLLBENCH_NCCL_DEBUG_CAPTURE"};
  unsetenv("COLLBENCH_NCCL_DEBUG_CAPTURE");
  setenv("NCCL_DEBUG", "WARN", 1);
  TempDir tmp;
  prepare_nccl_debug_capture(tmp.path.string());
  EXPECT_STREQ(std::getenv("NCCL_DEBUG"), "WARN");
  EXPECT_FALSE(read_nccl_debug_capture());
  EXPECT_EQ(collect_local_env(0, without_efa_retries()).env.at("NCCL_DEBUG"), "WARN");
}

}  // namespace collbench

// ---- subjects ----

namespace collbench::report {

TEST(EnvAuditSubject, NodeFactsNameTheNodesSettingsNameTheWorld) {
  auto ranks = cluster();
  ranks.push_back(healthy(9, "node-b"));
  ranks[1].memlock_kb = 64;
  ranks[2].memlock_kb = 64;
  ranks[0].shm_bytes = kKubernetesShmBytes;
  ranks[1].versions["nccl"] = "2.19.3";
  ranks[1].env["NCCL_PROTO"] = "ll";
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_EQ(find(fs, "MEMLOCK_LOW")->subject, Subject::node("node-b", {8, 9}));
  EXPECT_EQ(find(fs, "SHM_TOO_SMALL")->subject, Subject::node("node-a", {0}));
  for (const char* world : {"VERSION_INFO", "NCCL_VERSION_MISMATCH", "ENV_MISMATCH", "STACK_OK", "EFA_DEVICES_OK"})
    EXPECT_EQ(find(fs, world)->subject, Subject::world()) << world;
}

TEST(EnvAuditSubject, MissingDevicesAndGpusNameTheirNodes) {
  auto ranks = cluster();
  ranks[1].efa_devices = 2;
  ranks[0].gpus_visible = 7;
  ranks[1].ofi_plugin.clear();
  ranks[0].stack_kb = 1024;
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_EQ(find(fs, "EFA_DEVICES_MISSING")->subject, Subject::node("node-b", {8}));
  EXPECT_EQ(find(fs, "GPU_COUNT_MISMATCH")->subject, Subject::node("node-a", {0}));
  EXPECT_EQ(find(fs, "OFI_PLUGIN_MISSING")->subject, Subject::node("node-b", {8}));
  EXPECT_EQ(find(fs, "STACK_LIMIT")->subject, Subject::node("node-a", {0}));
}

TEST(EnvAuditSubject, LogFindingsGetTheHostsOfTheirRanks) {
  auto ranks = cluster();
  ranks[1].nccl_log = parse_nccl_log("h:1:1 [0] NCCL INFO Using network Socket\nNCCL WARN Cuda failure 'x'\n");
  ranks[0].nccl_log = parse_nccl_log("h:1:1 [0] NCCL INFO Using network AWS Libfabric\n");
  const auto fs = audit_environment(ranks, p4d());
  EXPECT_EQ(find(fs, "EFA_TCP_FALLBACK")->subject, Subject::node("node-b", {8}));
  EXPECT_EQ(find(fs, "CUDA_ERROR")->subject, Subject::rank(8, "node-b"));
  EXPECT_EQ(find(fs, "NET_TRANSPORT")->subject, Subject::world());
}

}  // namespace collbench::report
