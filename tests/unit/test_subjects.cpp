// Finding subjects: the helpers, their JSON in every document, and reading them back.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "reports/core/json_read.h"
#include "reports/core/json_report.h"

namespace collbench::report {
namespace {

using nlohmann::json;

Finding about(Subject s) {
  return {"SOME_CODE", Tag::Fail, Priority::P1, "evidence", "references/x.md \u00a7 1 Y", std::move(s)};
}

json subject_json(const Subject& s) { return to_json(about(s))["subject"]; }

}  // namespace

TEST(Subject, DefaultsToTheWorldAndOldInitialisersStillCompile) {
  const Finding f{"CODE", Tag::Pass, Priority::None, "m", ""};
  EXPECT_EQ(f.subject.kind, SubjectKind::World);
  EXPECT_TRUE(f.subject.hosts.empty());
  EXPECT_TRUE(f.subject.ranks.empty());
  EXPECT_EQ(f.subject, Subject::world());
}

TEST(Subject, HelpersSortRanksAndDropUnknownHosts) {
  const Subject n = Subject::node("a", {3, 1, 3});
  EXPECT_EQ(n.kind, SubjectKind::Node);
  EXPECT_EQ(n.hosts, std::vector<std::string>{"a"});
  EXPECT_EQ(n.ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(Subject::rank(5).hosts, std::vector<std::string>{});  // host not known
  EXPECT_EQ(Subject::nodes({"b", "", "a", "b"}).hosts, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(Subject::link("a", "b").hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(Subject::link("a", "b").ranks.empty());
}

TEST(SubjectJson, WorldHasEmptyLists) {
  const json s = subject_json(Subject::world());
  EXPECT_EQ(s, json::parse(R"({"kind": "world", "hosts": [], "ranks": []})"));
  // A world subject names nobody even when lists were filled in by mistake.
  Subject odd;
  odd.hosts = {"a"};
  odd.ranks = {1};
  EXPECT_EQ(subject_json(odd), s);
}

TEST(SubjectJson, NodeFieldByField) {
  const json s = subject_json(Subject::node("node-a", {8, 9}));
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s.size(), 3u);
  EXPECT_EQ(s["kind"], "node");
  EXPECT_EQ(s["hosts"], json::array({"node-a"}));
  EXPECT_EQ(s["ranks"], json::array({8, 9}));
}

TEST(SubjectJson, LinkFieldByField) {
  const json s = subject_json(Subject::link("node-a", "node-c"));
  EXPECT_EQ(s["kind"], "link");
  EXPECT_EQ(s["hosts"], json::array({"node-a", "node-c"}));
  EXPECT_EQ(s["ranks"], json::array());
}

TEST(SubjectJson, RankFieldByField) {
  const json s = subject_json(Subject::rank(3, "node-b"));
  EXPECT_EQ(s["kind"], "rank");
  EXPECT_EQ(s["hosts"], json::array({"node-b"}));
  EXPECT_EQ(s["ranks"], json::array({3}));
}

TEST(SubjectJson, RailFieldByField) {
  const json s = subject_json(Subject::rail({13, 5}, {"node-a", "node-b"}));
  EXPECT_EQ(s["kind"], "rail");
  EXPECT_EQ(s["hosts"], json::array({"node-a", "node-b"}));
  EXPECT_EQ(s["ranks"], json::array({5, 13}));
}

TEST(SubjectJson, EveryFindingOfADocumentCarriesOne) {
  json doc = json::object();
  add_verdict(doc, {about(Subject::rank(1, "h")), {"PLAIN", Tag::Info, Priority::None, "m", ""}}, 3);
  ASSERT_EQ(doc["findings"].size(), 2u);
  EXPECT_EQ(doc["findings"][0]["subject"]["kind"], "rank");
  EXPECT_EQ(doc["findings"][1]["subject"]["kind"], "world");
  const json run = run_document({}, {}, {about(Subject::node("h", {0}))}, {});
  EXPECT_EQ(run["findings"][0]["subject"]["hosts"], json::array({"h"}));
}

TEST(SubjectJson, RoundTripsEveryKind) {
  for (const Subject& s : {Subject::world(), Subject::node("a", {0, 1}), Subject::link("a", "b"),
                           Subject::rank(2, "b"), Subject::rail({1, 9}, {"a", "b"})}) {
    const Finding back = finding_from_json(to_json(about(s)));
    EXPECT_EQ(back.subject, s) << subject_kind_name(s.kind);
    EXPECT_EQ(back.code, "SOME_CODE");
    EXPECT_EQ(back.tag, Tag::Fail);
    EXPECT_EQ(back.priority, Priority::P1);
    EXPECT_EQ(back.reference, "references/x.md \u00a7 1 Y");
  }
}

// A document written before findings had a subject.
TEST(SubjectJson, OldDocumentsWithoutSubjectStillRead) {
  const json doc = json::parse(R"({
    "schema": "collbench.run/1",
    "findings": [
      {"code": "WRONG_RESULTS", "tag": "FAIL", "priority": "P0", "message": "4 wrong elements",
       "reference": "references/debugging-guide.md \u00a7 7 Node Hardware Failures"},
      {"code": "RESULTS_UNCHECKED", "tag": "INFO", "priority": null, "message": "m", "reference": null}
    ],
    "verdict": {"issues_found": 1, "exit_code": 3}
  })");
  const auto fs = findings_from_json(doc);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].code, "WRONG_RESULTS");
  EXPECT_EQ(fs[0].tag, Tag::Fail);
  EXPECT_EQ(fs[0].priority, Priority::P0);
  EXPECT_EQ(fs[0].subject, Subject::world());
  EXPECT_EQ(fs[1].priority, Priority::None);
  EXPECT_EQ(fs[1].reference, "");
  EXPECT_TRUE(findings_from_json(json::object()).empty());
}

TEST(SubjectJson, UnknownOrDamagedSubjectsReadAsTheWorld) {
  EXPECT_EQ(subject_from_json(json::parse(R"({"kind": "switch", "hosts": ["a"], "ranks": [1]})")), Subject::world());
  EXPECT_EQ(subject_from_json(json::parse(R"({"kind": 7})")), Subject::world());
  EXPECT_EQ(subject_from_json(json("node")), Subject::world());
  // A known kind with missing lists is that kind, naming nobody yet.
  const Subject s = subject_from_json(json::parse(R"({"kind": "node"})"));
  EXPECT_EQ(s.kind, SubjectKind::Node);
  EXPECT_TRUE(s.hosts.empty());
}

TEST(SubjectJson, KindNamesParseBack) {
  for (SubjectKind k : {SubjectKind::World, SubjectKind::Node, SubjectKind::Link, SubjectKind::Rank, SubjectKind::Rail}) {
    SubjectKind back = SubjectKind::World;
    ASSERT_TRUE(parse_subject_kind(subject_kind_name(k), &back));
    EXPECT_EQ(back, k);
  }
  SubjectKind unused;
  EXPECT_FALSE(parse_subject_kind("Node", &unused));
}

}  // namespace collbench::report
