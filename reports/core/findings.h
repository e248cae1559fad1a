// Findings in the HyperPod finding/reference scheme: a tag, a stable code, a priority, one line
// of evidence and a pointer into the hyperpod-nccl references.
#pragma once

#include <string>
#include <vector>

namespace collbench::report {

enum class Tag { Pass, Fail, Warn, Info };
enum class Priority { None, P0, P1, P2 };

// What a finding is about, for scripts that act on it (drain a node, re-test a link) without
// reading the message. World is the run as a whole and carries no hosts or ranks; other kinds list
// the hosts and ranks they name, as far as the judge knows them (an empty list: not known).
enum class SubjectKind { World, Node, Link, Rank, Rail };

struct Subject {
  SubjectKind kind = SubjectKind::World;
  std::vector<std::string> hosts;
  std::vector<int> ranks;  // global rank numbers

  static Subject world() { return {}; }
  static Subject node(std::string host, std::vector<int> ranks = {});
  static Subject nodes(std::vector<std::string> hosts, std::vector<int> ranks = {});
  static Subject link(std::string a, std::string b);  // the path between two hosts
  static Subject rank(int r, std::string host = "");
  static Subject ranks_on(std::vector<int> ranks, std::vector<std::string> hosts = {});
  static Subject rail(std::vector<int> ranks, std::vector<std::string> hosts = {});
  bool operator==(const Subject&) const = default;
};

struct Finding {
  std::string code;
  Tag tag = Tag::Info;
  Priority priority = Priority::None;
  std::string message;
  std::string reference;  // "references/<file>.md § <section>", or empty
  Subject subject = {};   // last, so {code, tag, priority, message, reference} still initialises
  bool operator==(const Finding&) const = default;  // word for word, subject included
};

std::string tag_name(Tag t);            // "PASS"
std::string priority_name(Priority p);  // "P0", or "" for None
std::string subject_kind_name(SubjectKind k);  // "node"
// "node" -> Node; false for a name it does not know.
bool parse_subject_kind(const std::string& name, SubjectKind* out);

// "[FAIL] WRONG_RESULTS (P0): ... → references/debugging-guide.md § 7 Node Hardware Failures"
std::string render_finding(const Finding& f, bool color);

// Exit code for a finished run: 3 when a FAIL (with fail_on_warn, a WARN too) is among the
// findings, else 0.
int exit_code_for(const std::vector<Finding>& findings, bool fail_on_warn = false);

}  // namespace collbench::report
