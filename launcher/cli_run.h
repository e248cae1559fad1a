// The options of `collbench run` (the nccl-tests-style sweep options).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "bench/options.h"

namespace collbench {

// Declares the options on `run`; values land in `o` or, when they need parsing, in `raw`.
void add_run_options(CLI::App& run, RunOptions& o, std::map<std::string, std::string>& raw);
// Parses and checks what add_run_options collected. Throws UsageError.
void finish_run_options(RunOptions& o, std::map<std::string, std::string>& raw);

// collbench's name of one collective given as `option` (allreduce, AllReduce, all_reduce are
// accepted); an unknown one is a UsageError with the nearest name.
std::string canonical_op(const std::string& text, const std::string& option);

}  // namespace collbench
