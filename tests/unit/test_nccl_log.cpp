#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "reports/core/findings.h"
#include "reports/env/nccl_log.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

// The fixture's output, its "#@ " metadata lines left out.
std::string fixture(const std::string& name) {
  std::ifstream in(std::string(COLLBENCH_FIXTURES) + "/nccl-tests/" + name);
  EXPECT_TRUE(in) << name;
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.rfind("#@ ", 0) != 0) out += line + "\n";
  return out;
}

std::vector<std::pair<int, NcclLogFacts>> per_rank_facts(const std::string& text) {
  std::vector<std::pair<int, NcclLogFacts>> out;
  for (const auto& [rank, lines] : split_log_by_rank(text)) out.emplace_back(rank, parse_nccl_log(lines));
  return out;
}

// A copy, so that it outlives the temporary vector of findings it came from.
bool any_fail(const std::vector<Finding>& fs) {
  return std::any_of(fs.begin(), fs.end(), [](const Finding& f) { return f.tag == Tag::Fail || f.tag == Tag::Warn; });
}

// One rank's log from synthetic lines in NCCL's own format.
std::vector<std::pair<int, NcclLogFacts>> ranks_with(const std::string& lines, std::vector<int> ranks = {0}) {
  std::vector<std::pair<int, NcclLogFacts>> out;
  for (int r : ranks) out.emplace_back(r, parse_nccl_log(lines));
  return out;
}

const std::string kEfaOk =
    "ip-10-1-2-3:100:100 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.16.3\n"
    "ip-10-1-2-3:100:100 [0] NCCL INFO NET/OFI Using Libfabric version 1.22\n"
    "ip-10-1-2-3:100:100 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa-direct (found 16 nics)\n"
    "ip-10-1-2-3:100:100 [0] NCCL INFO Using network Libfabric\n";

const std::string kSocket =
    "ip-10-1-2-3:100:100 [0] NCCL INFO NET/IB : No device found.\n"
    "ip-10-1-2-3:100:100 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>\n"
    "ip-10-1-2-3:100:100 [0] NCCL INFO Using network Socket\n";

}  // namespace

// ---- parsing the real logs ----

TEST(NcclLogParse, EksG4dnMetalFullLog) {
  const std::string text = fixture("all_reduce_2x_g4dn.metal_eks-efa-fulllog.txt");
  const NcclLogFacts whole = parse_nccl_log(text);
  EXPECT_EQ(whole.nccl_version, "2.12.7+cuda11.4");
  EXPECT_EQ(whole.network, "AWS Libfabric");
  EXPECT_EQ(whole.ofi_plugin_version, "1.5.0aws");  // old "NET/OFI Using aws-ofi-nccl" line
  EXPECT_EQ(whole.ofi_provider, "efa");
  EXPECT_FALSE(whole.reg_mr_failed || whole.ofi_no_provider || whole.system_error || whole.cuda_error);

  const auto ranks = per_rank_facts(text);
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].first, 0);
  EXPECT_EQ(ranks[0].second.nccl_version, "2.12.7+cuda11.4");
  EXPECT_EQ(ranks[1].second.nccl_version, "");  // only rank 0 prints the version
  EXPECT_EQ(ranks[1].second.network, "AWS Libfabric");
  EXPECT_EQ(ranks[1].second.ofi_provider, "efa");
}

TEST(NcclLogParse, MpirunTaggedP4dLogHasSixteenHealthyRanks) {
  const auto ranks = per_rank_facts(fixture("all_reduce_2x_p4d.24xlarge_old-error-column-fulllog.txt"));
  ASSERT_EQ(ranks.size(), 16u);
  EXPECT_EQ(ranks.front().second.nccl_version, "2.9.9+cuda11.2");
  for (const auto& [rank, f] : ranks) {
    EXPECT_EQ(f.network, "AWS Libfabric") << rank;
    EXPECT_EQ(f.ofi_provider, "efa") << rank;  // "Selected Provider is efa" with no NIC count
  }
  const auto findings = nccl_log_findings(ranks, true);
  EXPECT_FALSE(any_fail(findings));
  const auto t = find(findings, "NET_TRANSPORT");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->tag, Tag::Info);
  EXPECT_NE(t->message.find("AWS Libfabric (provider efa) on ranks 0-15"), std::string::npos) << t->message;
}

TEST(NcclLogParse, SrunLabelledRawLog) {
  const auto ranks = per_rank_facts(fixture("scatter_2x_p4d.24xlarge_srun-label-rawlog.txt"));
  ASSERT_EQ(ranks.size(), 16u);
  EXPECT_EQ(ranks.front().first, 0);
  EXPECT_EQ(ranks.back().first, 15);
  EXPECT_EQ(ranks.front().second.nccl_version, "2.18.3+cuda12.2");
  EXPECT_EQ(ranks.back().second.network, "AWS Libfabric");
  EXPECT_EQ(ranks.back().second.ofi_provider, "efa");
  EXPECT_EQ(ranks.back().second.ofi_plugin_version, "1.5.0aws");
  EXPECT_FALSE(any_fail(nccl_log_findings(ranks, true)));
}

TEST(NcclLogParse, G4dnProviderLineWithoutNicCount) {
  const NcclLogFacts f = parse_nccl_log(fixture("all_reduce_2x_g4dn.8xlarge_efa.txt"));
  EXPECT_EQ(f.network, "AWS Libfabric");
  EXPECT_EQ(f.ofi_provider, "efa");
}

TEST(NcclLogParse, NewerPluginLines) {
  const NcclLogFacts f = parse_nccl_log(kEfaOk);
  EXPECT_EQ(f.ofi_plugin_version, "1.16.3");
  EXPECT_EQ(f.libfabric_version, "1.22");
  EXPECT_EQ(f.ofi_provider, "efa");
  EXPECT_EQ(f.network, "Libfabric");
}

TEST(NcclLogParse, ToleratesLauncherPrefixesAndCrLf) {
  EXPECT_EQ(parse_nccl_log("[1,3]<stdout>:h:1:1 [0] NCCL INFO Using network IB\r\n").network, "IB");
  EXPECT_EQ(parse_nccl_log(" 3: h:1:1 [0] NCCL INFO Using network Socket\n").network, "Socket");
  EXPECT_EQ(parse_nccl_log("[2026-01-01 10:00:00] h:1:1 [0] NCCL INFO NCCL version 2.27.7+cuda12.9\n").nccl_version,
            "2.27.7+cuda12.9");
  EXPECT_EQ(parse_nccl_log("NCCL version 2.21.5+cuda12.4\n").nccl_version, "2.21.5+cuda12.4");  // NCCL_DEBUG=VERSION
  EXPECT_EQ(parse_nccl_log("# nccl-tests version 2.13.6 nccl-headers=21803\n").nccl_version, "");
}

TEST(NcclLogParse, ErrorPatterns) {
  EXPECT_TRUE(parse_nccl_log("h:1:1 [0] NCCL WARN NET/OFI No eligible providers were found\n").ofi_no_provider);
  EXPECT_TRUE(parse_nccl_log("h:1:1 [0] NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available\n")
                  .ofi_getinfo_failed);
  EXPECT_TRUE(parse_nccl_log("h:1:1 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot "
                             "allocate memory\n")
                  .reg_mr_failed);
  EXPECT_TRUE(
      parse_nccl_log("h:1:1 [0] NCCL WARN NET/OFI Unable to register memory (type = 1) for device 0.\n").reg_mr_failed);
  EXPECT_TRUE(parse_nccl_log("h:1:1 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-3Kd8aS to 9637892 bytes\n")
                  .shm_extend_failed);
  EXPECT_TRUE(parse_nccl_log("NCCL failure common.cu:1006 'unhandled system error'\n").system_error);
  EXPECT_TRUE(parse_nccl_log("NCCL failure common.cu:1006 'unhandled cuda error'\n").cuda_error);
  EXPECT_TRUE(parse_nccl_log("h:1:1 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'\n").cuda_error);
  EXPECT_EQ(
      parse_nccl_log("h:1:1 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm (found 1 nics)\n").ofi_provider,
      "tcp;ofi_rxm");

  const NcclLogFacts quiet = parse_nccl_log(kEfaOk);
  EXPECT_FALSE(quiet.ofi_no_provider || quiet.ofi_getinfo_failed || quiet.reg_mr_failed || quiet.shm_extend_failed ||
               quiet.system_error || quiet.cuda_error);
  EXPECT_TRUE(quiet.warnings.empty());
}

TEST(NcclLogParse, KeepsWarningText) {
  const NcclLogFacts f = parse_nccl_log("[2026-01-01 10:00:00] h:1:1 [0] net.cc:12 (fn) NCCL WARN something broke\n");
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0], "something broke");
}

TEST(NcclLogParse, DescribeRanksCompressesRuns) {
  EXPECT_EQ(describe_ranks({9, 0, 1, 2, 3, 4, 5, 6, 7}), "ranks 0-7,9");
  EXPECT_EQ(describe_ranks({3}), "rank 3");
  EXPECT_EQ(describe_ranks({12, 13, 0, 0}), "ranks 0,12-13");
  EXPECT_EQ(describe_ranks({}), "");
}

// ---- findings: each code once triggered, once not ----

TEST(NcclLogFindings, TcpFallbackOnSocketNetwork) {
  const auto fs = nccl_log_findings(ranks_with(kSocket, {0, 1, 2, 3}), true);
  const auto f = find(fs, "EFA_TCP_FALLBACK");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->priority, Priority::P0);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 13 EFA TCP Fallback");
  EXPECT_NE(f->message.find("ranks 0-3"), std::string::npos) << f->message;
  EXPECT_NE(render_finding(*f, false).find(" \u2192 references/debugging-guide.md \u00a7 13 EFA TCP Fallback"),
            std::string::npos);
}

TEST(NcclLogFindings, TcpFallbackOnTcpProvider) {
  const auto fs =
      nccl_log_findings(ranks_with("h:1:1 [0] NCCL INFO NET/OFI Selected Provider is tcp;ofi_rxm (found 1 nics)\n"
                                   "h:1:1 [0] NCCL INFO Using network AWS Libfabric\n"),
                        true);
  const auto f = find(fs, "EFA_TCP_FALLBACK");
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("tcp;ofi_rxm"), std::string::npos);
}

TEST(NcclLogFindings, NoTcpFallbackWhereEfaIsNotExpectedOrUsed) {
  EXPECT_FALSE(find(nccl_log_findings(ranks_with(kSocket), false), "EFA_TCP_FALLBACK"));
  EXPECT_FALSE(find(nccl_log_findings(ranks_with(kEfaOk), true), "EFA_TCP_FALLBACK"));
}

TEST(NcclLogFindings, OfiLoadFail) {
  const std::string lines = "h:1:1 [0] NCCL WARN NET/OFI No eligible providers were found\n" + kSocket;
  const auto f = find(nccl_log_findings(ranks_with(lines), true), "OFI_LOAD_FAIL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Fail);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 6 EFA Configuration");
  EXPECT_NE(f->message.find("No eligible providers were found"), std::string::npos);
}

TEST(NcclLogFindings, NoOfiLoadFailWhenAProviderWasSelectedOrEfaNotExpected) {
  // A failed probe for one protocol followed by a working provider is not a load failure.
  const std::string probe = "h:1:1 [0] NCCL INFO NET/OFI OFI fi_getinfo() call failed: No data available\n" + kEfaOk;
  EXPECT_FALSE(find(nccl_log_findings(ranks_with(probe), true), "OFI_LOAD_FAIL"));
  EXPECT_FALSE(
      find(nccl_log_findings(ranks_with("h:1:1 [0] NCCL WARN NET/OFI No eligible providers were found\n"), false),
           "OFI_LOAD_FAIL"));
}

TEST(NcclLogFindings, RdmaRegFail) {
  const auto fs = nccl_log_findings(
      ranks_with(
          "h:1:1 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory\n",
          {2, 5}),
      false);
  const auto f = find(fs, "RDMA_REG_FAIL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 17 RDMA Memory Registration Failure");
  EXPECT_NE(f->message.find("ranks 2,5"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("Call to ibv_reg_mr failed"), std::string::npos) << f->message;
  EXPECT_FALSE(find(nccl_log_findings(ranks_with(kEfaOk), true), "RDMA_REG_FAIL"));
}

TEST(NcclLogFindings, ShmFull) {
  const auto f =
      find(nccl_log_findings(
               ranks_with("h:1:1 [0] NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes\n"), false),
           "SHM_FULL");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 15 Stale Shared Memory");
  EXPECT_FALSE(find(nccl_log_findings(ranks_with(kEfaOk), true), "SHM_FULL"));
}

TEST(NcclLogFindings, SystemAndCudaErrors) {
  const auto fs =
      nccl_log_findings({{0, parse_nccl_log("NCCL failure common.cu:1006 'unhandled system error'\n")},
                         {1, parse_nccl_log("h:1:1 [0] enqueue.cc:100 NCCL WARN Cuda failure 'out of memory'\n")}},
                        false);
  const auto sys = find(fs, "SYSTEM_ERROR");
  const auto cuda = find(fs, "CUDA_ERROR");
  ASSERT_TRUE(sys);
  ASSERT_TRUE(cuda);
  EXPECT_EQ(sys->reference, "references/error-patterns-quick-ref.md");
  EXPECT_EQ(cuda->reference, "references/error-patterns-quick-ref.md");
  EXPECT_NE(sys->message.find("rank 0"), std::string::npos);
  EXPECT_NE(cuda->message.find("rank 1"), std::string::npos);
  EXPECT_NE(cuda->message.find("out of memory"), std::string::npos);
  const auto clean = nccl_log_findings(ranks_with(kEfaOk), true);
  EXPECT_FALSE(find(clean, "SYSTEM_ERROR"));
  EXPECT_FALSE(find(clean, "CUDA_ERROR"));
}

TEST(NcclLogFindings, VersionMismatchAcrossRanks) {
  const auto fs = nccl_log_findings(
      {{0, parse_nccl_log("NCCL version 2.18.3+cuda12.2\n")}, {8, parse_nccl_log("NCCL version 2.19.3+cuda12.2\n")}},
      false);
  const auto f = find(fs, "NCCL_VERSION_MISMATCH");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reference, "references/debugging-guide.md \u00a7 10 NCCL Version Mismatch");
  EXPECT_NE(f->message.find("2.18.3+cuda12.2 on rank 0"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("2.19.3+cuda12.2 on rank 8"), std::string::npos) << f->message;

  const auto same = nccl_log_findings(
      {{0, parse_nccl_log("NCCL version 2.18.3+cuda12.2\n")}, {8, parse_nccl_log("NCCL version 2.18.3+cuda12.2\n")}},
      false);
  EXPECT_FALSE(find(same, "NCCL_VERSION_MISMATCH"));
}

TEST(NcclLogFindings, TransportInfoOnlyWithLogs) {
  const auto fs = nccl_log_findings(ranks_with(kEfaOk, {0, 1}), true);
  const auto f = find(fs, "NET_TRANSPORT");
  ASSERT_TRUE(f);
  EXPECT_NE(f->message.find("Libfabric (aws-ofi-nccl 1.16.3, libfabric 1.22, provider efa) on ranks 0-1"),
            std::string::npos)
      << f->message;
  EXPECT_TRUE(nccl_log_findings({}, true).empty());
}

}  // namespace collbench::report
