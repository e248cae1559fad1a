// The options of `collbench run` (the nccl-tests-style sweep options).
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <string>

#include "bench/options.h"

namespace collbench {

// The text of the run options that need parsing (sizes, lists, names), as given (-b, --backend, -d,
// -e, -i, --inject, -m, -n, --no-progress, -o, --ops, --placement, --rank-reduce, --scope, -z); empty
// when absent. Parsed by the finish step.
struct RunText {
  std::string b;
  std::string backend;
  std::string d;
  std::string e;
  std::string i;
  std::string inject;
  std::string m;
  std::string n;
  std::string no_progress;
  std::string o;
  std::string ops;
  std::string placement;
  std::string rank_reduce;
  std::string scope;
  std::string z;
};

// Declares the options on `run`; values land in `o` or, when they need parsing, in `raw`.
void add_run_options(CLI::App& run, RunOptions& o, RunText& raw);
// Parses and checks what add_run_options collected. Throws UsageError.
void finish_run_options(RunOptions& o, RunText& raw);

// collbench's name of one collective given as `option` (allreduce, AllReduce, all_reduce are
// accepted); an unknown one is a UsageError with the nearest name.
std::string canonical_op(const std::string& text, const std::string& option);

}  // namespace collbench
