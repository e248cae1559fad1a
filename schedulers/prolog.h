// `collbench launch prolog`: a Slurm Prolog / HealthCheckProgram script. It runs a short node-local
// check (the environment audit and the node's own sweep, `preflight` on this node alone) and, when
// the check has a [FAIL], prints the drain line a person would run. It runs that line itself only
// when it was written with --drain: Slurm drains a node whose Prolog exits non-zero, with a reason
// nobody can read, so the script always exits 0 and drains, when asked, with the findings' codes.
#pragma once

#include <string>
#include <vector>

#include "schedulers/job_env.h"

namespace collbench::launch {

struct PrologJob {
  int ranks = 1;                        // local ranks: one per GPU
  std::string collbench = "collbench";  // the binary on the node
  std::string mpirun = "mpirun";
  std::string budget = "2m";
  std::vector<std::string> extra_args;  // appended to the preflight command (e.g. --backend mpi)
  bool drain = false;                   // run the scontrol line, not only print it
  std::string log_dir = "/var/tmp";     // the check's full output, one file per node
  std::vector<EnvSetting> env;
  std::string written_by;
};

// The collbench command line the script runs (after the binary): checked by `launch prolog` before
// it writes anything, so a script never carries options preflight would refuse on every node.
std::vector<std::string> prolog_check_command(const std::string& budget, const std::vector<std::string>& extra_args);

std::string render_prolog(const PrologJob& job);

}  // namespace collbench::launch
