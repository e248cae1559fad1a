#include "reports/core/findings.h"

#include <fmt/format.h>

#include <algorithm>

namespace collbench::report {

std::string tag_name(Tag t) {
  switch (t) {
    case Tag::Pass: return "PASS";
    case Tag::Fail: return "FAIL";
    case Tag::Warn: return "WARN";
    case Tag::Info: return "INFO";
  }
  return "INFO";
}

std::string priority_name(Priority p) {
  switch (p) {
    case Priority::P0: return "P0";
    case Priority::P1: return "P1";
    case Priority::P2: return "P2";
    case Priority::None: return "";
  }
  return "";
}

std::string subject_kind_name(SubjectKind k) {
  switch (k) {
    case SubjectKind::World: return "world";
    case SubjectKind::Node: return "node";
    case SubjectKind::Link: return "link";
    case SubjectKind::Rank: return "rank";
    case SubjectKind::Rail: return "rail";
  }
  return "world";
}

bool parse_subject_kind(const std::string& name, SubjectKind* out) {
  for (SubjectKind k : {SubjectKind::World, SubjectKind::Node, SubjectKind::Link, SubjectKind::Rank, SubjectKind::Rail})
    if (subject_kind_name(k) == name) {
      *out = k;
      return true;
    }
  return false;
}

namespace {

std::vector<std::string> known(std::vector<std::string> hosts) {
  std::vector<std::string> out;
  for (auto& h : hosts)
    if (!h.empty() && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(std::move(h));
  return out;
}

std::vector<int> sorted(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace

Subject Subject::node(std::string host, std::vector<int> ranks) {
  return nodes({std::move(host)}, std::move(ranks));
}

Subject Subject::nodes(std::vector<std::string> hosts, std::vector<int> ranks) {
  return {SubjectKind::Node, known(std::move(hosts)), sorted(std::move(ranks))};
}

Subject Subject::link(std::string a, std::string b) {
  return {SubjectKind::Link, known({std::move(a), std::move(b)}), {}};
}

Subject Subject::rank(int r, std::string host) { return ranks_on({r}, {std::move(host)}); }

Subject Subject::ranks_on(std::vector<int> ranks, std::vector<std::string> hosts) {
  return {SubjectKind::Rank, known(std::move(hosts)), sorted(std::move(ranks))};
}

Subject Subject::rail(std::vector<int> ranks, std::vector<std::string> hosts) {
  return {SubjectKind::Rail, known(std::move(hosts)), sorted(std::move(ranks))};
}

std::string render_finding(const Finding& f, bool color) {
  static constexpr const char* kReset = "\033[0m";
  const char* colour = "";
  switch (f.tag) {
    case Tag::Pass: colour = "\033[0;32m"; break;
    case Tag::Fail: colour = "\033[0;31m"; break;
    case Tag::Warn: colour = "\033[1;33m"; break;
    case Tag::Info: colour = "\033[0;34m"; break;
  }
  std::string out = color ? fmt::format("{}[{}]{}", colour, tag_name(f.tag), kReset) : "[" + tag_name(f.tag) + "]";
  out += " " + f.code;
  if (f.priority != Priority::None) out += " (" + priority_name(f.priority) + ")";
  out += ": " + f.message;
  if (!f.reference.empty()) out += " \u2192 " + f.reference;
  return out;
}

int exit_code_for(const std::vector<Finding>& findings, bool fail_on_warn) {
  for (const auto& f : findings)
    if (f.tag == Tag::Fail || (fail_on_warn && f.tag == Tag::Warn)) return 3;
  return 0;
}

}  // namespace collbench::report
