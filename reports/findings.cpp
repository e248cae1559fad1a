#include "reports/findings.h"

#include <fmt/format.h>

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
