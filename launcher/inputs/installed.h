// Where the data installed beside the binary lives: the thresholds folder and, in it, the known
// issues list. Found from the binary's own path, so an installed tree needs no option.
#pragma once

#include <string>

namespace collbench {

// <prefix>/share/collbench/thresholds or <build>/../thresholds beside the running binary, else the
// source tree's thresholds/ (a binary run from its build folder).
std::string default_thresholds_dir();

}  // namespace collbench
