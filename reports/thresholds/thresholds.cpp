#include "reports/thresholds/thresholds.h"

#include "common/names.h"
#include "reports/core/json_input.h"
#include "reports/env/known_issues.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace collbench::report {
namespace {

using nlohmann::json;

// Reads one object strictly: every key must be known, every value of the right type.
class Reader {
 public:
  Reader(const std::string& file, std::string where, const json& obj, std::set<std::string> allowed)
      : file_(file), where_(std::move(where)), obj_(obj) {
    if (!obj.is_object()) fail(where_, "must be an object", "write it as {...}");
    for (const auto& [key, _] : obj.items())
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(path(key), "is not a known key", "remove it or fix its spelling (known: " + list + ")");
      }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what, const std::string& fix) const {
    throw ThresholdError(fmt::format("{}: {} {}; {}", file_, key, what, fix));
  }

  std::string path(const std::string& key) const { return where_.empty() ? key : where_ + "." + key; }

  bool has(const std::string& key) const { return obj_.contains(key); }

  std::string str(const std::string& key, bool required = true) const {
    if (!has(key)) return required ? missing(key), std::string() : std::string();
    if (!obj_[key].is_string()) fail(path(key), "must be a string", "quote it");
    return obj_[key].get<std::string>();
  }

  double number(const std::string& key) const {
    if (!has(key)) missing(key);
    if (!obj_[key].is_number()) fail(path(key), "must be a number", "write it without quotes, e.g. 350.5");
    const double v = obj_[key].get<double>();
    if (v < 0) fail(path(key), fmt::format("is negative ({})", v), "bandwidths and counts are >= 0");
    return v;
  }

  std::int64_t integer(const std::string& key, std::int64_t fallback, bool required,
                       std::int64_t max = std::numeric_limits<std::int64_t>::max()) const {
    if (!has(key)) return required ? (missing(key), 0) : fallback;
    if (!obj_[key].is_number_integer()) fail(path(key), "must be an integer", "write a whole number");
    if (obj_[key].is_number_unsigned() && obj_[key].get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      fail(path(key), fmt::format("is too large ({})", obj_[key].get<std::uint64_t>()), fmt::format("at most {}", max));
    const auto v = obj_[key].get<std::int64_t>();
    if (v < 0) fail(path(key), fmt::format("is negative ({})", v), "counts and sizes are >= 0");
    if (v > max) fail(path(key), fmt::format("is too large ({})", v), fmt::format("at most {}", max));
    return v;
  }

  // A count kept in an int (nodes, GPUs, devices): larger is refused, never wrapped.
  int count(const std::string& key, int fallback, bool required) const {
    return static_cast<int>(integer(key, fallback, required, std::numeric_limits<int>::max()));
  }

  const json& at(const std::string& key) const {
    if (!has(key)) missing(key);
    return obj_[key];
  }

 private:
  [[noreturn]] void missing(const std::string& key) const { fail(path(key), "is missing", "add it"); }

  const std::string& file_;
  std::string where_;
  const json& obj_;
};

ThresholdRow read_row(const std::string& file, std::size_t i, const json& j) {
  const Reader r(file, fmt::format("thresholds[{}]", i), j,
                 {"op", "scope", "min_nodes", "max_nodes", "bytes", "fail_below", "warn_below", "basis", "source",
                  "note"});
  ThresholdRow row;
  row.op = r.str("op");
  if (!is_op_name(row.op)) r.fail(r.path("op"), "'" + row.op + "' is not a collective", "use all_reduce, all_to_all, ...");
  row.scope = r.str("scope");
  if (row.scope != "node" && row.scope != "world") r.fail(r.path("scope"), "'" + row.scope + "' is unknown", "use node or world");
  row.min_nodes = r.count("min_nodes", 1, false);
  row.max_nodes = r.count("max_nodes", 0, false);
  if (row.min_nodes < 1) r.fail(r.path("min_nodes"), "is 0", "a row applies to at least one node");
  if (row.max_nodes != 0 && row.max_nodes < row.min_nodes)
    r.fail(r.path("max_nodes"), "is below min_nodes", "raise it, or use 0 for no upper bound");
  if (row.scope == "node" && (r.has("min_nodes") || r.has("max_nodes")))
    r.fail(r.path("scope"), "is node but the row sets min_nodes/max_nodes", "node rows judge one node; drop them");
  row.bytes = static_cast<std::uint64_t>(r.integer("bytes", 0, true));
  row.fail_below = r.number("fail_below");
  row.warn_below = r.number("warn_below");
  if (row.warn_below < row.fail_below)
    r.fail(r.path("warn_below"), fmt::format("({}) is below fail_below ({})", row.warn_below, row.fail_below),
           "warn_below must be at least fail_below");
  row.basis = r.str("basis");
  if (row.basis != "published" && row.basis != "derived")
    r.fail(r.path("basis"), "'" + row.basis + "' is unknown", "use published or derived");
  row.source = r.str("source");
  if (row.source.empty()) r.fail(r.path("source"), "is empty", "say where the number comes from");
  r.str("note", false);
  return row;
}

}  // namespace

InstanceThresholds load_thresholds_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ThresholdError(fmt::format("{}: cannot be read; check the --thresholds path", path));
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number past double (1e999)
    throw ThresholdError(fmt::format("{}: not valid JSON ({}); fix the syntax", path, json_error_text(e)));
  }
  const Reader top(path, "", doc, {"schema", "instance_type", "hardware", "thresholds", "note"});
  if (top.str("schema") != "collbench.thresholds/1")
    top.fail("schema", "is not collbench.thresholds/1", "set \"schema\": \"collbench.thresholds/1\"");
  InstanceThresholds t;
  t.file = path;
  t.instance_type = top.str("instance_type");
  const Reader hw(path, "hardware", top.at("hardware"), {"gpus", "gpu", "efa_devices", "efa_gbps", "source"});
  t.hardware.gpus = hw.count("gpus", 0, true);
  t.hardware.gpu = hw.str("gpu");
  t.hardware.efa_devices = hw.count("efa_devices", 0, true);
  t.hardware.efa_gbps = hw.number("efa_gbps");
  t.hardware.source = hw.str("source");
  const json& rows = top.at("thresholds");
  if (!rows.is_array()) top.fail("thresholds", "must be an array", "write it as [ {...}, ... ]");
  for (std::size_t i = 0; i < rows.size(); ++i) t.rows.push_back(read_row(path, i, rows[i]));
  return t;
}

std::optional<InstanceThresholds> find_thresholds(const std::string& dir, const std::string& instance_type) {
  const auto file = std::filesystem::path(dir) / (instance_type + ".json");
  if (instance_type.empty() || !std::filesystem::exists(file)) return std::nullopt;
  auto t = load_thresholds_file(file.string());
  if (t.instance_type != instance_type)
    throw ThresholdError(fmt::format("{}: instance_type is '{}' but the file is named for '{}'; make them agree",
                                     file.string(), t.instance_type, instance_type));
  return t;
}

std::vector<std::string> profile_names(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json" && e.path().filename() != kKnownIssuesFile)
      out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace collbench::report
