// The two kinds of error the harness reports, and the exit codes they map to.
#pragma once

#include <stdexcept>
#include <string>

namespace collbench {

enum ExitCode : int { kExitOk = 0, kExitCouldNotRun = 1, kExitUsage = 2, kExitFailed = 3 };

// Bad input: an option, a size, a file. The message names the input and the fix. Exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The run could not be done: no GPU, an MPI or NCCL failure, a hang. Exit code 1.
struct RunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace collbench
