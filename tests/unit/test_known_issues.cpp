#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "bench/errors.h"
#include "launcher/commands/command_line.h"
#include "launcher/probes/env_collect.h"
#include "launcher/inputs/known_issue_input.h"
#include "reports/env/known_issue_verdicts.h"
#include "reports/env/known_issues.h"
#include "reports/env/nccl_log.h"
#include "tests/unit/finding_lookup.h"

namespace collbench::report {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(COLLBENCH_FIXTURES) + "/known-issues";
const std::string kShipped = std::string(COLLBENCH_THRESHOLDS_DIR) + "/known-issues.json";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One good entry; the malformed cases each change one thing in it.
nlohmann::json good_entry() {
  return nlohmann::json::parse(R"({
    "id": "nccl-2.19-old-installer",
    "when": {"nccl": {"from": "2.19"}, "efa_installer": {"below": "1.29"}},
    "unless_env": {"FI_EFA_SET_CUDA_SYNC_MEMOPS": "0"},
    "tag": "FAIL", "priority": "P0",
    "message": "registration fails", "fix": "EFA installer 1.29 or newer",
    "source": "https://github.com/aws/aws-ofi-nccl/issues/584"})");
}

std::string doc_with(const nlohmann::json& entry) {
  return nlohmann::json{{"schema", "collbench.known-issues/1"}, {"issues", {entry}}}.dump();
}

// The loader's error for `text`, or "" when it loads.
std::string error_of(const std::string& text) {
  try {
    parse_known_issues(text, "ki.json");
  } catch (const KnownIssueError& e) {
    return e.what();
  }
  return "";
}

RankEnv rank(int r, std::string host, std::map<std::string, std::string> versions) {
  RankEnv e;
  e.rank = r;
  e.host = std::move(host);
  e.versions = std::move(versions);
  return e;
}

bool has(const Finding* f, const std::string& text) { return f && f->message.find(text) != std::string::npos; }
bool has(const std::optional<Finding>& f, const std::string& text) { return has(f ? &*f : nullptr, text); }

}  // namespace

TEST(KnownIssuesLoader, AGoodEntryLoads) {
  const auto list = parse_known_issues(doc_with(good_entry()), "ki.json");
  ASSERT_EQ(list.issues.size(), 1u);
  const KnownIssue& i = list.issues[0];
  EXPECT_EQ(i.id, "nccl-2.19-old-installer");
  EXPECT_EQ(i.tag, Tag::Fail);
  EXPECT_EQ(i.priority, Priority::P0);
  EXPECT_EQ(i.when.at("nccl").text, ">= 2.19");
  EXPECT_EQ(i.when.at("efa_installer").text, "< 1.29");
  EXPECT_EQ(i.unless_env.at("FI_EFA_SET_CUDA_SYNC_MEMOPS"), "0");
}

TEST(KnownIssuesLoader, RefusesEachKindOfMalformedEntryNamingTheField) {
  struct Broken {
    std::string what;
    std::function<void(nlohmann::json&)> change;
    std::string field;  // the error names it
  };
  const std::vector<Broken> cases = {
      {"unknown key", [](auto& e) { e["severity"] = "high"; }, "severity is not a known key"},
      {"missing source", [](auto& e) { e.erase("source"); }, "source is missing"},
      {"empty source", [](auto& e) { e["source"] = ""; }, "source is empty"},
      {"source not a URL", [](auto& e) { e["source"] = "aws-ofi-nccl#584"; }, "source 'aws-ofi-nccl#584' is not a public URL"},
      {"plain http source", [](auto& e) { e["source"] = "http://example.com/x"; }, "is not a public URL"},
      {"missing fix", [](auto& e) { e.erase("fix"); }, "fix is missing"},
      {"tag of the wrong type", [](auto& e) { e["tag"] = 3; }, "tag must be a string"},
      {"unknown tag", [](auto& e) { e["tag"] = "PASS"; }, "tag 'PASS' is unknown"},
      {"unknown priority", [](auto& e) { e["priority"] = "P3"; }, "priority 'P3' is unknown"},
      {"INFO with a priority", [](auto& e) { e["tag"] = "INFO"; }, "priority is set on an INFO entry"},
      {"bad version", [](auto& e) { e["when"]["nccl"]["from"] = "2.x"; }, "when.nccl.from '2.x' is not a version"},
      {"version with a suffix", [](auto& e) { e["when"]["nccl"]["from"] = "2.19-aws"; }, "when.nccl.from '2.19-aws'"},
      {"version as a number", [](auto& e) { e["when"]["nccl"]["from"] = 2.19; }, "when.nccl.from must be a string"},
      {"empty range", [](auto& e) { e["when"]["nccl"] = nlohmann::json::object(); }, "when.nccl has no bound"},
      {"unknown bound", [](auto& e) { e["when"]["nccl"]["upto"] = "2.20"; }, "when.nccl.upto is not a known key"},
      {"through and below", [](auto& e) { e["when"]["nccl"] = {{"through", "2.20"}, {"below", "2.21"}}; },
       "when.nccl.below is given with through"},
      {"range that matches nothing", [](auto& e) { e["when"]["nccl"] = {{"from", "2.20"}, {"below", "2.19.9"}}; },
       "when.nccl.below (2.19.9) is not above from (2.20)"},
      {"through below from", [](auto& e) { e["when"]["nccl"] = {{"from", "2.20"}, {"through", "2.19"}}; },
       "when.nccl.through (2.19) is below from (2.20)"},
      {"unknown component", [](auto& e) { e["when"]["ncll"] = {{"from", "1"}}; }, "when.ncll is not a known component"},
      {"empty when", [](auto& e) { e["when"] = nlohmann::json::object(); }, "when is empty"},
      {"when not an object", [](auto& e) { e["when"] = "nccl 2.19"; }, "when must be an object"},
      {"env value not a string", [](auto& e) { e["unless_env"]["FI_X"] = 0; }, "unless_env.FI_X must be a string"},
      {"bad id", [](auto& e) { e["id"] = "Has Spaces"; }, "id 'Has Spaces' is not a usable id"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    nlohmann::json e = good_entry();
    c.change(e);
    const std::string err = error_of(doc_with(e));
    ASSERT_FALSE(err.empty());
    EXPECT_NE(err.find("ki.json: issues[0]"), std::string::npos) << err;  // the file and the entry
    EXPECT_NE(err.find(c.field), std::string::npos) << err;
    if (e.contains("id") && e["id"] == "nccl-2.19-old-installer") {
      EXPECT_NE(err.find("(id 'nccl-2.19-old-installer')"), std::string::npos) << err;
    }
  }
}

TEST(KnownIssuesLoader, RefusesMalformedDocuments) {
  EXPECT_NE(error_of("{").find("ki.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "collbench.known-issues/2", "issues": []})").find("schema is not"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "collbench.known-issues/1"})").find("issues is missing"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "collbench.known-issues/1", "issues": {}})").find("issues must be an array"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "collbench.known-issues/1", "issues": [], "extra": 1})").find("extra is not a known key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "collbench.known-issues/1", "issues": [7]})").find("issues[0] must be an object"),
            std::string::npos);
  const auto twice = nlohmann::json{{"schema", "collbench.known-issues/1"}, {"issues", {good_entry(), good_entry()}}};
  EXPECT_NE(error_of(twice.dump()).find("issues[1].id 'nccl-2.19-old-installer' is used twice"), std::string::npos);
  EXPECT_THROW(load_known_issues_file("/nonexistent/known-issues.json"), KnownIssueError);
}

TEST(KnownIssuesLoader, TheShippedFileLoadsAndEveryEntryHasASource) {
  const auto list = load_known_issues_file(kShipped);
  EXPECT_GE(list.issues.size(), 4u);
  std::set<std::string> ids;
  for (const auto& i : list.issues) {
    SCOPED_TRACE(i.id);
    EXPECT_EQ(i.source.rfind("https://github.com/", 0), 0u) << i.source;
    EXPECT_FALSE(i.fix.empty());
    EXPECT_FALSE(i.when.empty());
    EXPECT_TRUE(ids.insert(i.id).second);
  }
  EXPECT_TRUE(ids.count("nccl-2.19-with-efa-installer-before-1.29"));
}

TEST(KnownIssuesVersions, ParsedNumericallyWithSuffixesIgnored) {
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(parse_version("2.19.4+cuda12.2"), (V{2, 19, 4}));
  EXPECT_EQ(parse_version("1.7.3-aws"), (V{1, 7, 3}));
  EXPECT_EQ(parse_version("v1.11.0-aws"), (V{1, 11, 0}));
  EXPECT_EQ(parse_version("1.18.2amzn1.0"), (V{1, 18, 2}));
  EXPECT_EQ(parse_version("1.5.0aws"), (V{1, 5, 0}));
  EXPECT_EQ(parse_version("1.29.0"), (V{1, 29, 0}));
  EXPECT_EQ(parse_version("1.18"), (V{1, 18}));
  EXPECT_EQ(parse_version("12.10."), (V{12, 10}));
  EXPECT_FALSE(parse_version("Open MPI v4.1.4"));
  EXPECT_FALSE(parse_version(""));
  EXPECT_FALSE(parse_version("unknown"));
  EXPECT_FALSE(parse_version("99999999999999999999999.1"));  // past 64 bits: refused, not wrapped
}

TEST(KnownIssuesVersions, RangesAtTheirBoundaries) {
  const auto list = parse_known_issues(doc_with(good_entry()), "ki.json");
  const VersionRange& from = list.issues[0].when.at("nccl");            // >= 2.19
  const VersionRange& below = list.issues[0].when.at("efa_installer");  // < 1.29
  EXPECT_EQ(in_range("2.18.6+cuda12.1", from), Match::No);
  EXPECT_EQ(in_range("2.18.99", from), Match::No);
  EXPECT_EQ(in_range("2.19.0", from), Match::Yes);
  EXPECT_EQ(in_range("2.19", from), Match::Yes);
  EXPECT_EQ(in_range("2.19.4+cuda12.2", from), Match::Yes);
  EXPECT_EQ(in_range("2.100.1", from), Match::Yes);  // numeric, not text: 100 > 19
  EXPECT_EQ(in_range("1.28.9", below), Match::Yes);
  EXPECT_EQ(in_range("1.29.0", below), Match::No);
  EXPECT_EQ(in_range("1.29", below), Match::No);
  EXPECT_EQ(in_range("1.3.0", below), Match::Yes);  // 3 < 29
  EXPECT_EQ(in_range("", below), Match::Unknown);
  EXPECT_EQ(in_range("n/a", below), Match::Unknown);

  // Exactly one version, and a version reported with fewer parts than the bound needs.
  nlohmann::json e = good_entry();
  e["when"] = {{"ofi_plugin", {{"from", "1.12.0"}, {"through", "1.12.0"}}}, {"libfabric", {{"below", "1.18.2"}}}};
  const auto exact = parse_known_issues(doc_with(e), "ki.json");
  const VersionRange& one = exact.issues[0].when.at("ofi_plugin");
  EXPECT_EQ(one.text, "1.12.0");
  EXPECT_EQ(in_range("1.12.0-aws", one), Match::Yes);
  EXPECT_EQ(in_range("v1.12.0", one), Match::Yes);
  EXPECT_EQ(in_range("1.11.9", one), Match::No);
  EXPECT_EQ(in_range("1.12.1-aws", one), Match::No);
  EXPECT_EQ(in_range("1.12.0.1", one), Match::No);
  EXPECT_EQ(in_range("1.12", one), Match::Unknown);  // 1.12.x found: could be 1.12.0 or 1.12.1
  EXPECT_EQ(in_range("1", one), Match::Unknown);    // 1.x: could be 1.12.0 or not
  const VersionRange& lf = exact.issues[0].when.at("libfabric");
  EXPECT_EQ(in_range("1.18", lf), Match::Unknown);  // libfabric prints major.minor: 1.18.x may be 1.18.3
  EXPECT_EQ(in_range("1.17", lf), Match::Yes);
  EXPECT_EQ(in_range("1.19", lf), Match::No);
}

TEST(KnownIssuesVersions, AnUnknownComponentNeverMatchesButAKnownMissRulesOut) {
  const auto list = parse_known_issues(doc_with(good_entry()), "ki.json");
  const KnownIssue& i = list.issues[0];
  EXPECT_EQ(match_issue(i, {{"nccl", "2.19.4"}}, nullptr), Match::Unknown);
  EXPECT_EQ(match_issue(i, {{"nccl", "2.18.3"}}, nullptr), Match::No);
  EXPECT_EQ(match_issue(i, {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}}, nullptr), Match::Yes);
  EXPECT_EQ(match_issue(i, {{"nccl", "2.19.4"}, {"efa_installer", "garbage"}}, nullptr), Match::Unknown);
  const std::map<std::string, std::string> worked_around{{"FI_EFA_SET_CUDA_SYNC_MEMOPS", "0"}}, other{{"FI_X", "1"}};
  EXPECT_EQ(match_issue(i, {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}}, &worked_around), Match::No);
  EXPECT_EQ(match_issue(i, {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}}, &other), Match::Yes);
  EXPECT_EQ(matching_issues(list, {{"nccl", "2.20.3"}, {"efa_installer", "1.20.0"}}).size(), 1u);
  EXPECT_TRUE(matching_issues(list, {{"nccl", "2.20.3"}, {"efa_installer", "1.29.0"}}).empty());
}

TEST(KnownIssueVerdicts, NamesVersionsHostsRanksFixAndSource) {
  const auto list = load_known_issues_file(kShipped);
  std::vector<RankEnv> ranks = {rank(0, "a", {{"nccl", "2.19.4"}, {"efa_installer", "1.30.0"}}),
                                rank(1, "a", {{"nccl", "2.19.4"}, {"efa_installer", "1.30.0"}}),
                                rank(2, "b", {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}}),
                                rank(3, "b", {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}})};
  const auto fs = known_version_findings(ranks, list);
  const Finding* bad = nullptr;
  const Finding* regression = nullptr;
  for (const auto& f : fs) {
    EXPECT_EQ(f.code, "KNOWN_BAD_VERSIONS");
    if (f.tag == Tag::Fail) bad = &f;
    if (f.tag == Tag::Warn) regression = &f;
  }
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->priority, Priority::P0);
  EXPECT_TRUE(has(bad, "NCCL 2.19.4 with EFA installer 1.28.0 on host b (ranks 2-3)")) << bad->message;
  EXPECT_TRUE(has(bad, "fix: install EFA installer 1.29 or newer")) << bad->message;
  EXPECT_TRUE(has(bad, "https://github.com/aws/aws-ofi-nccl/issues/584")) << bad->message;
  EXPECT_FALSE(has(bad, "host a")) << bad->message;
  EXPECT_EQ(bad->subject, Subject::nodes({"b"}, {2, 3}));
  EXPECT_EQ(bad->reference, "references/debugging-guide.md \u00a7 10 NCCL Version Mismatch");
  ASSERT_TRUE(regression);  // NCCL 2.19.4 everywhere: about the job, not a node
  EXPECT_EQ(regression->priority, Priority::P2);
  EXPECT_TRUE(has(regression, "NCCL 2.19.4 on hosts a, b (ranks 0-3)")) << regression->message;
  EXPECT_EQ(regression->subject, Subject::world());

  // The workaround set on host b: that entry no longer applies there.
  for (auto& r : ranks) r.env["FI_EFA_SET_CUDA_SYNC_MEMOPS"] = "0";
  for (const auto& f : known_version_findings(ranks, list)) EXPECT_NE(f.tag, Tag::Fail) << f.message;
}

TEST(KnownIssueVerdicts, PassWhenVersionsAreKnownAndNothingMatches) {
  const auto list = load_known_issues_file(kShipped);
  const std::vector<RankEnv> ranks = {
      rank(0, "a", {{"nccl", "2.21.5"}, {"efa_installer", "1.38.0"}, {"ofi_plugin", "1.13.2"}}),
      rank(1, "b", {{"nccl", "2.21.5"}, {"efa_installer", "1.38.0"}, {"ofi_plugin", "1.13.2"}})};
  const auto fs = known_version_findings(ranks, list);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "NO_KNOWN_BAD_VERSIONS");
  EXPECT_EQ(fs[0].tag, Tag::Pass);
  EXPECT_TRUE(has(&fs[0], "none of the 4 known-bad version combinations")) << fs[0].message;
  EXPECT_TRUE(has(&fs[0], "NCCL 2.21.5, aws-ofi-nccl 1.13.2, EFA installer 1.38.0")) << fs[0].message;
}

TEST(KnownIssueVerdicts, NothingClaimedWhenTheNeededVersionsAreUnknown) {
  const auto list = load_known_issues_file(kShipped);
  // No versions at all: an INFO, no claim.
  auto fs = known_version_findings({rank(0, "a", {}), rank(1, "b", {{"mpi", "Open MPI v4.1.4"}})}, list);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "KNOWN_ISSUES_SKIPPED");
  EXPECT_EQ(fs[0].tag, Tag::Info);
  EXPECT_TRUE(has(&fs[0], "not known")) << fs[0].message;
  // NCCL 2.21.5 known (rules out the 2.19.4 entry; NCCL 2.19+ with an old installer needs the
  // installer), aws-ofi-nccl and the installer not: a PASS that says which entries it could not check.
  fs = known_version_findings({rank(0, "a", {{"nccl", "2.21.5"}})}, list);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].tag, Tag::Pass);
  EXPECT_TRUE(has(&fs[0], "none of the 1 known-bad")) << fs[0].message;
  EXPECT_TRUE(has(&fs[0], "3 more not checked")) << fs[0].message;
  EXPECT_TRUE(has(&fs[0], "nccl-2.19-with-efa-installer-before-1.29")) << fs[0].message;
  // NCCL 2.18 rules out the entries that need 2.19+, whatever the installer.
  fs = known_version_findings({rank(0, "a", {{"nccl", "2.18.5"}})}, list);
  EXPECT_TRUE(has(&fs[0], "none of the 2 known-bad")) << fs[0].message;
  EXPECT_TRUE(has(&fs[0], "aws-ofi-nccl, EFA installer not known")) << fs[0].message;
  // aws-ofi-nccl 1.12.0 without the installer version: the entry needs both, so no claim.
  fs = known_version_findings({rank(0, "a", {{"nccl", "2.21.5"}, {"ofi_plugin", "1.12.0-aws"}})}, list);
  EXPECT_FALSE(find(fs, "KNOWN_BAD_VERSIONS"));
  EXPECT_TRUE(known_version_findings({}, list).empty());
}

TEST(KnownIssueVerdicts, VersionsFromTheNcclLogCompleteTheProbe) {
  RankEnv r = rank(0, "a", {{"nccl", "2.21.5"}});
  NcclLogFacts log;
  log.nccl_version = "2.19.4+cuda12.2";  // the probe's answer wins where both have one
  log.ofi_plugin_version = "1.12.0-aws";
  log.libfabric_version = "1.22";
  r.nccl_log = log;
  const auto v = known_versions(r);
  EXPECT_EQ(v.at("nccl"), "2.21.5");
  EXPECT_EQ(v.at("ofi_plugin"), "1.12.0-aws");
  EXPECT_EQ(v.at("libfabric"), "1.22");

  r.versions["efa_installer"] = "1.35.0";
  const auto fs = known_version_findings({r}, load_known_issues_file(kShipped));
  ASSERT_TRUE(find(fs, "KNOWN_BAD_VERSIONS"));
  EXPECT_TRUE(has(find(fs, "KNOWN_BAD_VERSIONS"), "aws-ofi-nccl 1.12.0-aws with EFA installer 1.35.0 on host a (rank 0)"))
      << find(fs, "KNOWN_BAD_VERSIONS")->message;
  EXPECT_TRUE(has(find(fs, "KNOWN_BAD_VERSIONS"), "fix: move to aws-ofi-nccl 1.12.1 or newer"));
}

TEST(KnownIssueVerdicts, AnNcclLogWithAKnownBadVersion) {
  const auto list = load_known_issues_file(kShipped);
  RankEnv from_log;
  from_log.nccl_log = parse_nccl_log(read(kFixtures + "/nccl-2.19.4_efa.log"));
  ASSERT_EQ(from_log.nccl_log->nccl_version, "2.19.4+cuda12.2");
  auto fs = known_version_findings({from_log}, list, /*from_log=*/true);
  const auto f = find(fs, "KNOWN_BAD_VERSIONS");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->tag, Tag::Warn);
  EXPECT_EQ(f->priority, Priority::P2);
  EXPECT_TRUE(has(f, "NCCL 2.19.4+cuda12.2 in this log: NCCL 2.19.4 has a performance regression")) << f->message;
  EXPECT_TRUE(has(f, "https://github.com/awslabs/awsome-distributed-ai/pull/217")) << f->message;
  EXPECT_TRUE(f->subject.ranks.empty() && f->subject.hosts.empty());

  from_log.nccl_log = parse_nccl_log(read(kFixtures + "/nccl-2.21.5_efa.log"));
  fs = known_version_findings({from_log}, list, true);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].code, "NO_KNOWN_BAD_VERSIONS");
  EXPECT_TRUE(has(&fs[0], "from the log")) << fs[0].message;
}

TEST(KnownIssueVerdicts, ALogCannotRuleOutAWorkaroundSoTheMessageSaysSo) {
  const auto list = parse_known_issues(doc_with(good_entry()), "ki.json");
  RankEnv r = rank(0, "", {{"nccl", "2.19.4"}, {"efa_installer", "1.28.0"}});
  const auto fs = known_version_findings({r}, list, /*from_log=*/true);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(has(&fs[0], "(unless FI_EFA_SET_CUDA_SYNC_MEMOPS=0 was set, which a log does not show)")) << fs[0].message;
}

}  // namespace collbench::report

namespace collbench {
namespace fs = std::filesystem;

TEST(KnownIssuesInput, EfaInstallerVersionCollectedAndCarriedOnTheWire) {
  const std::string file = std::string(COLLBENCH_FIXTURES) + "/known-issues/efa_installed_packages_1.28.0";
  EXPECT_EQ(read_efa_installer_version(file), "1.28.0");
  EXPECT_EQ(read_efa_installer_version("/nonexistent/efa_installed_packages"), "");
  CollectOptions o;
  o.efa_retries = 0;
  o.efa_installed_packages = file;
  const report::RankEnv e = collect_local_env(0, o);
  EXPECT_EQ(e.versions.at("efa_installer"), "1.28.0");
  const report::RankEnv back = report::rank_env_from_json(nlohmann::json::parse(report::to_json(e).dump()));
  EXPECT_EQ(back.versions.at("efa_installer"), "1.28.0");
  o.efa_installed_packages = "/nonexistent/efa_installed_packages";
  EXPECT_FALSE(collect_local_env(0, o).versions.count("efa_installer"));
}

TEST(KnownIssuesInput, AGivenFileThatCannotBeUsedIsExit2NamingIt) {
  const fs::path dir = fs::temp_directory_path() / ("collbench-ki-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string bad = (dir / "mine.json").string();
  std::ofstream(bad) << R"({"schema": "collbench.known-issues/1", "issues": [{"id": "x", "when": {"nccl": {"from": "2.19"}},
    "tag": "WARN", "priority": "P1", "message": "m", "fix": "f"}]})";
  for (const char* command : {"analyze", "run", "preflight"}) {
    SCOPED_TRACE(command);
    std::vector<std::string> args = {command, "--known-issues", bad};
    if (std::string(command) == "analyze") args.push_back(bad);
    try {
      parse_command_line(args);
      ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(bad + ": issues[0] (id 'x').source is missing"), std::string::npos) << e.what();
    }
  }
  try {
    parse_command_line(std::vector<std::string>{"analyze", "--known-issues", (dir / "absent.json").string(), bad});
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--known-issues '" + (dir / "absent.json").string() + "': no such file"),
              std::string::npos)
        << e.what();
  }
  const Command none = parse_command_line(std::vector<std::string>{"analyze", "--known-issues", "none", bad});
  EXPECT_EQ(none.verdict.known_issues, "none");
  const auto found = known_issue_findings(none.verdict, {report::RankEnv{}});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].code, "KNOWN_ISSUES_SKIPPED");
  EXPECT_NE(found[0].message.find("--known-issues none"), std::string::npos);
  // The default, beside the installed thresholds, is the shipped file.
  const auto choice = known_issues_for(VerdictOptions{});
  ASSERT_TRUE(choice.list);
  EXPECT_EQ(choice.list->file.substr(choice.list->file.size() - 17), "known-issues.json");
  fs::remove_all(dir);
}

}  // namespace collbench
