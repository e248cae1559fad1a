// Inputs the fuzzers (tests/fuzz) found that crashed or broke a reader's promise, kept as tests.
// The inputs themselves are under tests/fuzz/regressions/, replayed by scripts/fuzz.sh.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "reports/analyze/analyze_input.h"
#include "reports/analyze/nccl_text_parser.h"
#include "reports/core/json_input.h"
#include "reports/core/json_read.h"
#include "reports/core/json_report.h"
#include "reports/env/nccl_log.h"
#include "reports/thresholds/thresholds.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

// A rank label past int ("[1,99999999999]<stdout>:") threw std::out_of_range from std::stoi.
TEST(FuzzRegressions, NcclLogRankLabelPastIntIsNoLabel) {
  const auto split = split_log_by_rank("[1,99999999999]<stdout>: NCCL INFO x\n[1,3]<stdout>: NCCL version 2.18.5\n");
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0].first, 3);
}

// "#  Rank N ... on HOST device" and "nGpus N" with N past int threw std::out_of_range.
TEST(FuzzRegressions, NcclTestsRankAndGpusPastIntAreSkipped) {
  const auto out = parse_nccl_tests_output(
      "# nThread 1 nGpus 99999999999 minBytes 8\n"
      "#  Rank 99999999999 Group  0 Pid 1 on host-a device  0\n"
      "#  Rank  1 Group  0 Pid 2 on host-b device  0\n");
  EXPECT_EQ(out.gpus_per_process, 0);
  ASSERT_EQ(out.ranks.size(), 1u);
  EXPECT_EQ(out.ranks[0].rank, 1);
  EXPECT_EQ(out.ranks[0].host, "host-b");
}

// A float out of range where a whole number belongs (bytes 1e300, a rank 1e300) was undefined
// behaviour in nlohmann's get<>(); now std::invalid_argument naming the field.
TEST(FuzzRegressions, PartialJournalNumbersOutOfRangeAreRefused) {
  const auto bytes = document_from_partial("{}\n{\"case\":{\"bytes\":1e300}}\n");
  try {
    cases_from_json(bytes);
    ADD_FAILURE() << "accepted bytes 1e300";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bytes is 1e+300: out of range"), std::string::npos) << e.what();
  }
  EXPECT_THROW(cases_from_json(document_from_partial("{}\n{\"case\":{\"group\":{\"ranks\":[1e300]}}}\n")),
               std::invalid_argument);
  EXPECT_THROW(cases_from_json(document_from_partial("{}\n{\"case\":{\"root\":4294967296}}\n")), std::invalid_argument);
  EXPECT_THROW(span_from_json(nlohmann::json::parse(R"({"world":{"nodes":[{"ranks":[-1e19]}]}})")),
               std::invalid_argument);
  // In range, as before: whole numbers, and floats truncated.
  const auto ok = cases_from_json(document_from_partial("{}\n{\"case\":{\"bytes\":1024.0,\"root\":-1,\"count\":2.5}}\n"));
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].bytes, 1024u);
  EXPECT_EQ(ok[0].count, 2u);
  EXPECT_EQ(ok[0].root, -1);
}

TEST(FuzzRegressions, NcclTestsJsonNumbersOutOfRangeAreRefused) {
  EXPECT_THROW(from_nccl_tests_json(nlohmann::json::parse(
                                        R"({"results":[{"size":8,"out_of_place":{"time":1,"nwrong":1e300}}]})"),
                                    "x.json", {}),
               std::invalid_argument);
  EXPECT_THROW(from_nccl_tests_json(nlohmann::json::parse(R"({"results":[{"size":-1e300}]})"), "x.json", {}),
               std::invalid_argument);
}

// A number past double (1e999) is nlohmann's out_of_range, not a parse_error: it escaped the
// journal reader, whose one error is InputError. A first line that is no object gave nlohmann's
// type_error.
TEST(FuzzRegressions, PartialJournalDamageIsAnInputError) {
  EXPECT_THROW(document_from_partial("{\"schema\":\"collbench.run.partial/1\"}\n{\"case\":{\"bytes\":1e999}}\n{}\n"),
               InputError);
  EXPECT_THROW(document_from_partial("[1]\n"), InputError);
  // Cut short as the last line, it is the end of a killed run, as before.
  EXPECT_EQ(document_from_partial("{}\n{\"case\":{\"bytes\":1e999").at("cases").size(), 0u);
}

// Counts past int (min_nodes 4294967298, gpus 2^32 + 8) were wrapped to 2 and 8, silently.
TEST(FuzzRegressions, ThresholdCountsPastIntAreRefused) {
  const fs::path path = fs::temp_directory_path() / ("cbfuzzreg" + std::to_string(::getpid()) + ".json");
  const auto load = [&](const std::string& gpus, const std::string& min_nodes) {
    std::ofstream(path) << R"({"schema": "collbench.thresholds/1", "instance_type": "t.large",
      "hardware": {"gpus": )" << gpus << R"(, "gpu": "X", "efa_devices": 0, "efa_gbps": 0, "source": "s"},
      "thresholds": [{"op": "all_reduce", "scope": "world", "min_nodes": )"
                        << min_nodes << R"(, "bytes": 8, "fail_below": 1, "warn_below": 2, "basis": "derived", "source": "d"}]})";
    return load_thresholds_file(path.string());
  };
  EXPECT_EQ(load("8", "2").rows.at(0).min_nodes, 2);
  // A number past double escaped as nlohmann's out_of_range instead of ThresholdError.
  EXPECT_THROW(load("1e999", "2"), ThresholdError);
  for (const auto& [gpus, min_nodes, mentions] :
       {std::tuple{"4294967304", "2", "hardware.gpus is too large (4294967304); at most 2147483647"},
        std::tuple{"8", "4294967298", "thresholds[0].min_nodes is too large (4294967298)"},
        std::tuple{"18446744073709551615", "2", "hardware.gpus is too large (18446744073709551615)"}}) {
    try {
      load(gpus, min_nodes);
      ADD_FAILURE() << "accepted gpus " << gpus << ", min_nodes " << min_nodes;
    } catch (const ThresholdError& e) {
      EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
    }
  }
  fs::remove(path);
}

// A byte that is not UTF-8 (Latin-1, a cut line) went from the text into the results, and
// `analyze --json` died writing them: "[json.exception.type_error.316] invalid UTF-8 byte".
TEST(FuzzRegressions, NcclTestsTextNotUtf8ReadsAsReplacementCharacters) {
  const std::string row = "           8             2     float     sum      -1    22.09    0.00    \xff\xfe       0";
  const auto r = from_nccl_tests_text("#  Rank  0 Group  0 Pid 1 on h\xe9te device  0\n" + row + "\n", "x.txt", {});
  ASSERT_EQ(r.malformed.size(), 1u);
  EXPECT_NE(r.malformed[0].text.find("\xef\xbf\xbd\xef\xbf\xbd"), std::string::npos);
  ASSERT_EQ(r.span.hosts.size(), 1u);
  EXPECT_EQ(r.span.hosts[0], "h\xef\xbf\xbdte");
  EXPECT_NO_THROW(nlohmann::json({{"text", r.malformed[0].text}, {"hosts", r.span.hosts}}).dump());
}

// The same in an NCCL log, and a warning quoted in a finding was cut after 120 bytes, possibly in
// the middle of a character.
TEST(FuzzRegressions, NcclLogNotUtf8AndQuotesCutAtACharacter) {
  const auto bad = parse_nccl_log("h:1:2 NCCL INFO Using network So\xff" "cket\nh:1:2 NCCL WARN bad \xc3\n");
  EXPECT_EQ(bad.network, "So\xef\xbf\xbd" "cket");
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_EQ(bad.warnings[0], "bad \xef\xbf\xbd");

  const std::string warning = "unhandled system error " + std::string(96, 'x') + "\xc3\xa9tail";  // é at byte 119
  const auto facts = parse_nccl_log("h:1:2 NCCL WARN " + warning + "\n");
  const auto findings = nccl_log_findings({{0, facts}}, false);
  const auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.code == "SYSTEM_ERROR"; });
  ASSERT_NE(it, findings.end());
  EXPECT_NE(it->message.find(std::string(96, 'x') + "\u2026"), std::string::npos) << it->message;
  EXPECT_NO_THROW(to_json(*it).dump());
}

}  // namespace
}  // namespace collbench::report
