// Findings looked up by code in tests: defined once here, since a unity build compiles several test
// files as one and two files' helpers of one name would clash.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "reports/core/findings.h"

namespace collbench::report {

// The first finding with this code, as a copy, so a lookup in a temporary list stays valid.
inline std::optional<Finding> find(const std::vector<Finding>& fs, const std::string& code) {
  const auto it = std::find_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.code == code; });
  return it == fs.end() ? std::nullopt : std::optional<Finding>(*it);
}

// Every finding's code, in order.
inline std::vector<std::string> codes(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.code);
  return out;
}

}  // namespace collbench::report
