// Outside JSON that is wrong, in every reader: one error type (InputError in reports/, UsageError
// naming the file in the launcher), a message that names the field, never nlohmann's own
// exceptions or std::terminate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <new>
#include <stdexcept>

#include "bench/errors.h"
#include "launcher/inputs/known_issue_input.h"
#include "launcher/inputs/result_input.h"
#include "launcher/inputs/run_json.h"
#include "launcher/verdicts/verdicts.h"
#include "reports/analyze/analyze_input.h"
#include "reports/core/json_input.h"
#include "reports/core/json_read.h"
#include "reports/run/compare.h"

namespace collbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using report::InputError;

// The message of what `f` throws as E; "" when it throws nothing (any other type fails the test).
template <class E, class F> std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The inputs every reader is given: a number where an object belongs, two values, a number past
// double, a string where a number belongs, a file cut short, and text that is no JSON.
const char* const kNumberForObject = R"({"schema": "collbench.run/1", "cases": [1]})";
const char* const kTwoValues = "1\n2";
const char* const kPastDouble = "1e999";
const char* const kStringForNumber = R"({"schema": "collbench.run/1", "cases": [{"op": "all_reduce", "busbw_gbs": "fast"}]})";
const char* const kTruncated = R"({"schema": "collbench.run/1", "cases": [{"op": "all_re)";
const char* const kNotJson = "all_reduce was fast\n";
const std::vector<const char*> kBadInputs{kNumberForObject, kTwoValues, kPastDouble, kStringForNumber, kTruncated, kNotJson};

// ---- the helper ----

TEST(JsonInput, ParseSaysWhereTheTextStopsBeingJson) {
  EXPECT_EQ(report::parse_input_json("[1, 2]"), json::parse("[1, 2]"));
  const std::string two = error_of<InputError>([] { report::parse_input_json(kTwoValues); });
  EXPECT_TRUE(has(two, "not JSON (parse error at line 2, column 1")) << two;
  EXPECT_FALSE(has(two, "[json.exception")) << two;
  const std::string big = error_of<InputError>([] { report::parse_input_json(kPastDouble); });
  EXPECT_TRUE(has(big, "out of range (number overflow parsing '1e999')")) << big;
  for (const char* text : {kTruncated, kNotJson, ""})
    EXPECT_TRUE(has(error_of<InputError>([&] { report::parse_input_json(text); }), "not JSON")) << text;
}

TEST(JsonInput, KindsForMessages) {
  EXPECT_EQ(report::json_kind(json(1)), "a number");
  EXPECT_EQ(report::json_kind(json(1.5)), "a number");
  EXPECT_EQ(report::json_kind(json("x")), "a string");
  EXPECT_EQ(report::json_kind(json::array()), "an array");
  EXPECT_EQ(report::json_kind(json::object()), "an object");
  EXPECT_EQ(report::json_kind(json(true)), "a boolean");
  EXPECT_EQ(report::json_kind(json()), "null");
}

TEST(JsonInput, ReadingNamesTheFieldInWhatAReaderThrows) {
  const json number = 5;
  EXPECT_EQ(error_of<InputError>([&] { report::reading("cases[3]", [&] { return number.get<std::string>(); }); }),
            "cases[3]: type must be string, but is number");
  EXPECT_EQ(error_of<InputError>([&] { report::reading("world", [&] { return number.at("x"); }); }),
            "world: cannot use at() with number");
  EXPECT_EQ(error_of<InputError>([] { report::reading("a", [] { report::reading("b", [] { throw InputError("c"); }); }); }),
            "a: b: c");
  EXPECT_EQ(error_of<InputError>([] { report::reading("x", [] { return std::vector<int>{}.at(1); }); }).rfind("x: ", 0), 0u);
  EXPECT_EQ(error_of<InputError>([] { report::reading("x", [] { throw std::invalid_argument("bad"); }); }), "x: bad");
  // Not about the input: passed on as it is.
  EXPECT_THROW(report::reading("x", [] { throw std::bad_alloc(); }), std::bad_alloc);
  EXPECT_EQ(error_of<std::runtime_error>([] { report::reading("x", [] { throw std::runtime_error("io"); }); }), "io");
  EXPECT_EQ(report::reading("x", [] { return 7; }), 7);
}

TEST(JsonInput, FieldsOfTheWrongTypeAreNamedAndNullIsAbsent) {
  const json o = json::parse(R"({"s": "x", "n": 2.5, "z": null, "a": [1], "wrong": 1})");
  EXPECT_EQ(report::string_field(o, "s"), "x");
  EXPECT_EQ(report::string_field(o, "z", "d"), "d");
  EXPECT_EQ(report::string_field(o, "missing", "d"), "d");
  EXPECT_EQ(error_of<InputError>([&] { report::string_field(o, "wrong"); }), "wrong is a number; it must be a string");
  EXPECT_EQ(report::number_field(o, "n"), 2.5);
  EXPECT_EQ(report::number_field(o, "z", 7), 7);
  EXPECT_EQ(error_of<InputError>([&] { report::number_field(o, "s"); }), "s is a string; it must be a number");
  EXPECT_EQ(report::array_field(o, "a").size(), 1u);
  EXPECT_TRUE(report::array_field(o, "z").empty());
  EXPECT_EQ(error_of<InputError>([&] { report::array_field(o, "s"); }), "s is a string; it must be an array");
  EXPECT_EQ(error_of<InputError>([&] { report::object_of(o["a"], "x", "a node"); }),
            "x is an array; a node must be an object");
}

// ---- the readers of collbench documents (reports/) ----

std::string case_error(const std::string& doc) {
  return error_of<InputError>([&] { report::cases_from_json(json::parse(doc)); });
}

TEST(JsonInput, RunDocumentReadersNameTheCaseAndTheField) {
  EXPECT_EQ(case_error(kNumberForObject), "cases[0] is a number; a case must be an object");
  EXPECT_EQ(case_error(kStringForNumber), "cases[0]: busbw_gbs is a string; it must be a number");
  EXPECT_EQ(case_error(R"({"cases": [{}, {"bytes": "8"}]})"), "cases[1]: bytes is a string; it must be a whole number");
  EXPECT_EQ(case_error(R"({"cases": [{"op": 7}]})"), "cases[0]: op is a number; it must be a string");
  EXPECT_EQ(case_error(R"({"cases": {"op": "x"}})"), "cases is an object; it must be an array");
  EXPECT_EQ(case_error(R"({"cases": [{"time_us": 5}]})"), "cases[0]: time_us is a number; it must be an object");
  EXPECT_EQ(case_error(R"({"cases": [{"time_us": {"mean": "1"}}]})"), "cases[0]: mean is a string; it must be a number");
  EXPECT_EQ(case_error(R"({"cases": [{"group": {"ranks": "0,1"}}]})"), "cases[0]: ranks is a string; it must be an array");
  EXPECT_EQ(case_error(R"({"cases": [{"group": []}]})"), "cases[0]: group is an array; it must be an object");
  EXPECT_EQ(case_error(R"({"cases": [{"arrival": {"iterations": true}}]})"),
            "cases[0]: arrival: iterations is a boolean; it must be a whole number");
  EXPECT_EQ(case_error("[1]"), "the document is an array; a collbench document must be an object");
  // Null reads as absent, as older files and other writers leave fields.
  const auto cases = report::cases_from_json(json::parse(
      R"({"cases": [{"op": null, "group": null, "time_us": null, "bytes": null, "wrong_ranks": null}], "findings": null})"));
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].bytes, 0u);

  const auto span_error = [](const std::string& doc) {
    return error_of<InputError>([&] { report::span_from_json(json::parse(doc)); });
  };
  EXPECT_EQ(span_error(R"({"world": 5})"), "world is a number; it must be an object");
  EXPECT_EQ(span_error(R"({"world": {"nodes": [3]}})"), "world.nodes[0] is a number; a node must be an object");
  EXPECT_EQ(span_error(R"({"world": {"nodes": [{"name": 3}]}})"), "world.nodes[0]: name is a number; it must be a string");
  EXPECT_EQ(span_error(R"({"world": {"ranks": "two"}})"), "world: ranks is a string; it must be a whole number");
  EXPECT_EQ(span_error(R"({"world": {"ranks": 1e300}})"),
            "world: ranks is 1e+300: out of range (a whole number from -2147483648 to 2147483647)");
  EXPECT_EQ(error_of<InputError>([] { report::findings_from_json(json::parse(R"({"findings": [{"code": 1}]})")); }),
            "findings[0]: code is a number; it must be a string");
  EXPECT_EQ(error_of<InputError>([] { report::findings_from_json(json::parse(R"({"findings": ["x"]})")); }),
            "findings[0] is a string; a finding must be an object");
}

TEST(JsonInput, JournalLinesThatAreNotJsonAreNamed) {
  EXPECT_EQ(error_of<InputError>([] { report::document_from_partial("1\n2\n"); }),
            "line 1 is a number, not a JSON object: a journal starts with its run's header");
  EXPECT_TRUE(has(error_of<InputError>([] { report::document_from_partial("{}\n{\"case\": 1e999}\n{}\n"); }),
                  "line 2 is not JSON (number overflow parsing '1e999')"));
  EXPECT_TRUE(has(error_of<InputError>([] { report::document_from_partial("{}\n{\"case\": {\n{}\n"); }),
                  "line 2 is not JSON (parse error"));
  // A last line cut short is how a killed run ends.
  EXPECT_EQ(report::document_from_partial("{}\n{\"case\": {}}\n{\"case\": {\"op\": \"all_re").at("cases").size(), 1u);
}

TEST(JsonInput, NcclTestsJsonReaderNamesTheResultAndTheField) {
  const auto error = [](const std::string& doc) {
    return error_of<InputError>([&] { report::from_nccl_tests_json(json::parse(doc), "x.json", {}); });
  };
  EXPECT_EQ(error(R"({"results": [1]})"), "results[0] is a number; a result must be an object");
  EXPECT_EQ(error(R"({"results": [{"size": "8"}]})"), "results[0]: size is a string; it must be a whole number");
  EXPECT_EQ(error(R"({"results": [{"size": 8, "out_of_place": {"bus_bw": "1"}}]})"),
            "results[0]: bus_bw is a string; it must be a number");
  EXPECT_EQ(error(R"({"results": 5})"), "results is a number; it must be an array");
  EXPECT_EQ(error(R"({"results": [], "config": {"devices": [{"hostname": 5}]}})"),
            "config.devices[0]: hostname is a number; it must be a string");
  EXPECT_EQ(error(R"({"results": [], "config": []})"), "config is an array; it must be an object");
}

TEST(JsonInput, ReportChecksRunsAndPreflightPhases) {
  EXPECT_NO_THROW(report::check_document(json::parse(R"({"schema": "collbench.hunt/1", "rounds": 5})")));
  EXPECT_EQ(error_of<InputError>([] { report::check_document(json::parse(kNumberForObject)); }),
            "cases[0] is a number; a case must be an object");
  EXPECT_EQ(error_of<InputError>([] {
              report::check_document(json::parse(
                  R"({"schema": "collbench.preflight/1", "phases": [{"document": {"schema": "collbench.run/1", "world": []}}]})"));
            }),
            "phases[0].document: world is an array; it must be an object");
}

// ---- the launcher: files named on the command line ----

class JsonInputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cbjsoninput" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  fs::path dir_;
};

TEST_F(JsonInputFiles, EveryBadResultsFileIsAUsageErrorNamingIt) {
  for (const char* text : kBadInputs) {
    SCOPED_TRACE(text);
    const std::string path = file("B", text);
    // A run document whose cases are wrong is read whole; its cases are read below.
    const std::string run = error_of<UsageError>([&] { read_run_json(path); });
    if (text != kNumberForObject && text != kStringForNumber) {
      EXPECT_EQ(run.rfind("'" + path + "': ", 0), 0u) << run;
    }
    EXPECT_FALSE(has(run, "[json.exception")) << run;
    const std::string base = error_of<UsageError>([&] { load_results_document(path); });
    EXPECT_EQ(base.rfind("'" + path + "': ", 0), 0u) << base;
    error_of<UsageError>([&] { load_results(path, {}); });  // analyze: refused as above, or read as nccl-tests text
  }
}

TEST_F(JsonInputFiles, TheMessageNamesTheFieldAndTheFix) {
  const std::string b = file("B", kNumberForObject);
  EXPECT_EQ(error_of<UsageError>([&] { load_results_document(b); }),
            "'" + b + "': cases[0] is a number; a case must be an object; rerun collbench or fix the file");
  const std::string s = file("S", kStringForNumber);
  EXPECT_EQ(error_of<UsageError>([&] { load_results_document(s); }),
            "'" + s + "': cases[0]: busbw_gbs is a string; it must be a number; rerun collbench or fix the file");
  const std::string two = file("two", kTwoValues);
  EXPECT_TRUE(has(error_of<UsageError>([&] { read_run_json(two); }),
                  "': not JSON (parse error at line 2, column 1: syntax error while parsing value - unexpected number "
                  "literal; expected end of input); give a collbench --json result"));
  const std::string big = file("big", kPastDouble);
  EXPECT_TRUE(has(error_of<UsageError>([&] { read_run_json(big); }), "': a number in it is out of range")) << big;
  const std::string nccl = file("n.json", R"({"results": [{"size": 8, "out_of_place": {"time": "slow"}}]})");
  EXPECT_EQ(error_of<UsageError>([&] { load_results_document(nccl); }),
            "'" + nccl + "': results[0]: time is a string; it must be a number; rerun nccl-tests with -J or fix the file");
  const std::string journal = file("r.json.partial", "{\"schema\": \"collbench.run.partial/1\"}\n{\"case\": 1e999}\n{}\n");
  EXPECT_TRUE(has(error_of<UsageError>([&] { load_results(journal, {}); }), "': line 2 is not JSON"));
  const std::string world = file("w", R"({"schema": "collbench.run/1", "world": {"backend": 2}, "cases": []})");
  EXPECT_EQ(error_of<UsageError>([&] { load_results(world, {}); }),
            "'" + world + "': world: backend is a number; it must be a string; rerun collbench or fix the file");
  // A hint the file contradicts says what to change itself.
  const std::string ok = file("ok", R"({"schema": "collbench.run/1", "world": {"nodes": [{"name": "a"}]}, "cases": []})");
  EXPECT_EQ(error_of<UsageError>([&] { load_results(ok, {2, ""}); }),
            "'" + ok + "': --nodes 2 contradicts the run, which names 1 node(s); drop --nodes");
}

// What compare gets back has every field compare reads, of its type, whatever the file left null.
TEST_F(JsonInputFiles, CompareReadsWhatTheLoaderAccepted) {
  const std::string path = file("nulls", R"({"schema": "collbench.run/1", "world": {"backend": null, "nodes": null},
    "cases": [{"op": "all_reduce", "bytes": 1024, "group": null, "time_us": null, "busbw_gbs": 2}]})");
  const json doc = load_results_document(path);
  EXPECT_TRUE(doc["cases"][0]["time_us"].is_object());
  const auto result = report::compare_runs(doc, doc, std::nullopt);
  EXPECT_EQ(result.cases.size(), 1u);
  const std::string no_world = file("noworld", R"({"schema": "collbench.run/1", "world": null, "cases": [{"bytes": 8}]})");
  EXPECT_NO_THROW(report::compare_runs(load_results_document(no_world), doc, std::nullopt));
}

TEST_F(JsonInputFiles, ThresholdsAndKnownIssuesFilesAreUsageErrorsNamingThem) {
  const std::vector<std::string> thresholds{
      R"({"schema": "collbench.thresholds/1", "instance_type": "x", "hardware": 5, "thresholds": []})",
      kTwoValues,
      kPastDouble,
      R"({"schema": "collbench.thresholds/1", "instance_type": "x", "hardware": {"gpus": 8, "gpu": "g",
        "efa_devices": 0, "efa_gbps": 0, "source": "s"}, "thresholds": [{"op": "all_reduce", "scope": "world",
        "bytes": 8, "fail_below": "1", "warn_below": 2, "basis": "derived", "source": "s"}]})",
      R"({"schema": "collbench.thresholds/1", "instance_ty)",
      kNotJson};
  for (const auto& text : thresholds) {
    SCOPED_TRACE(text);
    VerdictOptions v;
    v.thresholds = file("t.json", text);
    const std::string e = error_of<UsageError>([&] { thresholds_for(v, "x"); });
    EXPECT_TRUE(has(e, v.thresholds + ": ")) << e;
  }
  const std::vector<std::string> known{
      R"({"schema": "collbench.known-issues/1", "issues": [1]})",
      kTwoValues,
      kPastDouble,
      R"({"schema": "collbench.known-issues/1", "issues": [{"id": 5}]})",
      R"({"schema": "collbench.known-iss)",
      kNotJson};
  for (const auto& text : known) {
    SCOPED_TRACE(text);
    VerdictOptions v;
    v.known_issues = file("k.json", text);
    const std::string e = error_of<UsageError>([&] { known_issues_for(v); });
    EXPECT_TRUE(has(e, v.known_issues + ": ")) << e;
  }
}

}  // namespace
}  // namespace collbench
