#include "reports/env/known_issues.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "reports/core/json_input.h"

namespace collbench::report {
namespace {

using nlohmann::json;
using Parts = std::vector<std::uint64_t>;

// Reads one object strictly, as the thresholds loader does: every key known, every value typed.
class Reader {
 public:
  Reader(const std::string& file, std::string where, const json& obj, std::set<std::string> allowed)
      : file_(file), where_(std::move(where)), obj_(obj) {
    if (!obj.is_object()) fail("", "must be an object", "write it as {...}");
    for (const auto& [key, _] : obj.items())
      if (!allowed.count(key)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(key, "is not a known key", "remove it or fix its spelling (known: " + list + ")");
      }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& what, const std::string& fix) const {
    throw KnownIssueError(fmt::format("{}: {} {}; {}", file_, path(key), what, fix));
  }

  std::string path(const std::string& key) const {
    if (key.empty()) return where_.empty() ? std::string("the document") : where_;
    return where_.empty() ? key : where_ + "." + key;
  }

  bool has(const std::string& key) const { return obj_.contains(key); }

  std::string str(const std::string& key, bool required = true) const {
    if (!has(key)) {
      if (required) fail(key, "is missing", "add it");
      return "";
    }
    if (!obj_[key].is_string()) fail(key, "must be a string", "quote it");
    std::string v = obj_[key].get<std::string>();
    if (required && v.find_first_not_of(" \t") == std::string::npos) fail(key, "is empty", "write it");
    return v;
  }

  const json& at(const std::string& key) const {
    if (!has(key)) fail(key, "is missing", "add it");
    return obj_[key];
  }

 private:
  const std::string& file_;
  std::string where_;
  const json& obj_;
};

std::string join(const Parts& p) {
  std::string s;
  for (std::size_t i = 0; i < p.size(); ++i) s += (i ? "." : "") + std::to_string(p[i]);
  return s;
}

// A bound in the file: digits and dots only, so a typo cannot pass as a shorter version.
Parts read_bound(const Reader& r, const std::string& key) {
  const std::string text = r.str(key);
  bool ok = !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
            std::isdigit(static_cast<unsigned char>(text.back()));
  for (std::size_t i = 0; ok && i < text.size(); ++i)
    ok = std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && text[i + 1] != '.');
  const auto parts = ok ? parse_version(text) : std::nullopt;
  if (!parts) r.fail(key, fmt::format("'{}' is not a version", text), "write dotted numbers only, e.g. 1.29.0");
  return *parts;
}

int compare(const Parts& v, const Parts& b, std::uint64_t pad);

VersionRange read_range(const std::string& file, const std::string& where, const json& j) {
  const Reader r(file, where, j, {"from", "through", "below"});
  VersionRange range;
  if (r.has("from")) range.from = read_bound(r, "from");
  if (r.has("through")) range.through = read_bound(r, "through");
  if (r.has("below")) range.below = read_bound(r, "below");
  if (!range.from && !range.through && !range.below)
    r.fail("", "has no bound", "give from, through or below (e.g. {\"from\": \"2.19\"})");
  if (range.through && range.below)
    r.fail("below", "is given with through", "use one upper bound: through (inclusive) or below (exclusive)");
  if (range.from && range.through && compare(*range.from, *range.through, 0) > 0)
    r.fail("through", fmt::format("({}) is below from ({})", join(*range.through), join(*range.from)),
           "the range would match nothing; fix the bounds");
  if (range.from && range.below && compare(*range.from, *range.below, 0) >= 0)
    r.fail("below", fmt::format("({}) is not above from ({})", join(*range.below), join(*range.from)),
           "the range would match nothing; fix the bounds");
  if (range.from && range.through && compare(*range.from, *range.through, 0) == 0)
    range.text = join(*range.from);
  else {
    std::vector<std::string> parts;
    if (range.from) parts.push_back(">= " + join(*range.from));
    if (range.through) parts.push_back("<= " + join(*range.through));
    if (range.below) parts.push_back("< " + join(*range.below));
    range.text = parts.size() == 1 ? parts[0] : parts[0] + " and " + parts[1];
  }
  return range;
}

bool good_id(const std::string& id) {
  if (id.empty() || !std::isalnum(static_cast<unsigned char>(id.front()))) return false;
  return std::all_of(id.begin(), id.end(), [](unsigned char c) {
    return std::islower(c) || std::isdigit(c) || c == '-' || c == '.' || c == '_';
  });
}

KnownIssue read_issue(const std::string& file, std::size_t i, const json& j) {
  std::string where = fmt::format("issues[{}]", i);
  // Name the entry by its id in every later error, when it has a readable one.
  if (j.is_object() && j.contains("id") && j["id"].is_string())
    where += fmt::format(" (id '{}')", j["id"].get<std::string>());
  const Reader r(file, where, j, {"id", "when", "unless_env", "tag", "priority", "message", "fix", "source", "note"});
  KnownIssue issue;
  issue.id = r.str("id");
  if (!good_id(issue.id))
    r.fail("id", fmt::format("'{}' is not a usable id", issue.id),
           "use lower-case letters, digits, '-', '.' and '_', starting with a letter or digit");

  const json& when = r.at("when");
  if (!when.is_object()) r.fail("when", "must be an object", "write it as {\"nccl\": {\"from\": \"2.19\"}, ...}");
  if (when.empty()) r.fail("when", "is empty", "name at least one component and its range");
  const auto& components = known_issue_components();
  for (const auto& [name, range] : when.items()) {
    if (std::find(components.begin(), components.end(), name) == components.end())
      r.fail("when." + name, "is not a known component",
             fmt::format("use one of {}", fmt::join(components, ", ")));
    issue.when[name] = read_range(file, r.path("when." + name), range);
  }

  if (r.has("unless_env")) {
    const json& env = r.at("unless_env");
    if (!env.is_object()) r.fail("unless_env", "must be an object", "write it as {\"VARIABLE\": \"value\"}");
    for (const auto& [name, value] : env.items()) {
      if (!value.is_string()) r.fail("unless_env." + name, "must be a string", "quote the value");
      issue.unless_env[name] = value.get<std::string>();
    }
  }

  const std::string tag = r.str("tag");
  if (tag == "FAIL") issue.tag = Tag::Fail;
  else if (tag == "WARN") issue.tag = Tag::Warn;
  else if (tag == "INFO") issue.tag = Tag::Info;
  else r.fail("tag", fmt::format("'{}' is unknown", tag), "use FAIL, WARN or INFO");
  if (issue.tag == Tag::Info) {
    if (r.has("priority")) r.fail("priority", "is set on an INFO entry", "INFO findings carry no priority; drop it");
    issue.priority = Priority::None;
  } else {
    const std::string p = r.str("priority");
    if (p == "P0") issue.priority = Priority::P0;
    else if (p == "P1") issue.priority = Priority::P1;
    else if (p == "P2") issue.priority = Priority::P2;
    else r.fail("priority", fmt::format("'{}' is unknown", p), "use P0, P1 or P2");
  }
  issue.message = r.str("message");
  issue.fix = r.str("fix");
  issue.source = r.str("source");
  if (issue.source.rfind("https://", 0) != 0 || issue.source.size() <= 8 ||
      issue.source.find_first_of(" \t\n") != std::string::npos)
    r.fail("source", fmt::format("'{}' is not a public URL", issue.source),
           "give the https:// address of the issue, pull request or release note that shows it");
  r.str("note", false);
  return issue;
}

// v against bound b; v's parts missing where b has some count as `pad` (0: the smallest completion
// of v, max: the largest), parts missing from b as 0.
int compare(const Parts& v, const Parts& b, std::uint64_t pad) {
  const std::size_t n = std::max(v.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t x = i < v.size() ? v[i] : (i < b.size() ? pad : 0);
    const std::uint64_t y = i < b.size() ? b[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

Match both(Match a, Match b) {
  if (a == Match::No || b == Match::No) return Match::No;
  if (a == Match::Unknown || b == Match::Unknown) return Match::Unknown;
  return Match::Yes;
}

}  // namespace

const std::vector<std::string>& known_issue_components() {
  static const std::vector<std::string> names = {"nccl",      "ofi_plugin",  "efa_installer",
                                                 "libfabric", "cuda_driver", "cuda_runtime"};
  return names;
}

std::optional<std::vector<std::uint64_t>> parse_version(const std::string& text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == 'v' || text[i] == 'V')) ++i;
  Parts parts;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    std::uint64_t n = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      const std::uint64_t d = static_cast<std::uint64_t>(text[i] - '0');
      if (n > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;  // no wrap-around
      n = n * 10 + d;
    }
    parts.push_back(n);
    if (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
    else break;
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

Match in_range(const std::string& version, const VersionRange& range) {
  const auto v = parse_version(version);
  if (!v) return Match::Unknown;
  constexpr std::uint64_t kTop = std::numeric_limits<std::uint64_t>::max();
  Match m = Match::Yes;
  if (range.from) {  // v >= from
    if (compare(*v, *range.from, 0) >= 0) m = both(m, Match::Yes);
    else m = both(m, compare(*v, *range.from, kTop) < 0 ? Match::No : Match::Unknown);
  }
  if (range.through) {  // v <= through
    if (compare(*v, *range.through, kTop) <= 0) m = both(m, Match::Yes);
    else m = both(m, compare(*v, *range.through, 0) > 0 ? Match::No : Match::Unknown);
  }
  if (range.below) {  // v < below
    if (compare(*v, *range.below, kTop) < 0) m = both(m, Match::Yes);
    else m = both(m, compare(*v, *range.below, 0) >= 0 ? Match::No : Match::Unknown);
  }
  return m;
}

KnownIssueList parse_known_issues(const std::string& text, const std::string& file) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    throw KnownIssueError(fmt::format("{}: not valid JSON ({}); fix the syntax", file, json_error_text(e)));
  }
  const Reader top(file, "", doc, {"schema", "issues", "note"});
  if (top.str("schema") != "collbench.known-issues/1")
    top.fail("schema", "is not collbench.known-issues/1", "set \"schema\": \"collbench.known-issues/1\"");
  top.str("note", false);
  const json& issues = top.at("issues");
  if (!issues.is_array()) top.fail("issues", "must be an array", "write it as [ {...}, ... ]");
  KnownIssueList list;
  list.file = file;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < issues.size(); ++i) {
    KnownIssue issue = read_issue(file, i, issues[i]);
    if (!ids.insert(issue.id).second)
      throw KnownIssueError(fmt::format("{}: issues[{}].id '{}' is used twice; ids must be unique", file, i, issue.id));
    list.issues.push_back(std::move(issue));
  }
  return list;
}

KnownIssueList load_known_issues_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw KnownIssueError(fmt::format("{}: cannot be read; check the --known-issues path", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_known_issues(text.str(), path);
}

Match match_issue(const KnownIssue& issue, const std::map<std::string, std::string>& versions,
                  const std::map<std::string, std::string>* env) {
  Match m = Match::Yes;
  for (const auto& [component, range] : issue.when) {
    const auto it = versions.find(component);
    m = both(m, it == versions.end() ? Match::Unknown : in_range(it->second, range));
  }
  if (m != Match::Yes || !env) return m;
  for (const auto& [name, value] : issue.unless_env) {
    const auto it = env->find(name);
    if (it != env->end() && it->second == value) return Match::No;  // worked around
  }
  return m;
}

std::vector<const KnownIssue*> matching_issues(const KnownIssueList& list,
                                               const std::map<std::string, std::string>& versions,
                                               const std::map<std::string, std::string>* env) {
  std::vector<const KnownIssue*> out;
  for (const auto& issue : list.issues)
    if (match_issue(issue, versions, env) == Match::Yes) out.push_back(&issue);
  return out;
}

}  // namespace collbench::report
