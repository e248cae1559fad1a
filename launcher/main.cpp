#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "bench/nccl_presence.h"
#include "bench/errors.h"
#include "launcher/job/agree.h"
#include "launcher/commands/command_line.h"
#include "launcher/commands/commands.h"
#include "launcher/job/join_watch.h"
#include "launcher/probes/nccl_capture.h"
#include "launcher/job/stop_signals.h"

namespace {

// Before MPI_Init, only the launcher's environment tells which process is rank 0.
bool launched_as_rank_zero() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::string(v) == "0";
  return true;
}

// analyze, compare, thresholds derive, launch, report: no MPI, one process.
int run_offline(const collbench::Command& cmd) {
  try {
    switch (cmd.kind) {
      case collbench::Command::Kind::Analyze: return collbench::analyze_command(cmd);
      case collbench::Command::Kind::Compare: return collbench::compare_command(cmd);
      case collbench::Command::Kind::DeriveThresholds: return collbench::derive_thresholds_command(cmd);
      case collbench::Command::Kind::Launch: return collbench::launch_command(cmd);
      case collbench::Command::Kind::Report: return collbench::report_command(cmd);
      default: return collbench::kExitUsage;
    }
  } catch (const collbench::UsageError& e) {
    collbench::print_error(e.what(), 0);
    return collbench::kExitUsage;
  } catch (const std::exception& e) {
    collbench::print_error(e.what(), 0);
    return collbench::kExitCouldNotRun;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  collbench::Command cmd;
  try {
    cmd = collbench::parse_command_line(args);
  } catch (const collbench::UsageError& e) {
    if (launched_as_rank_zero()) collbench::print_error(e.what(), 0);
    return collbench::kExitUsage;
  } catch (const std::exception& e) {  // a bug: bad input arrives as UsageError
    if (launched_as_rank_zero()) collbench::print_error(std::string("reading the command line: ") + e.what(), 0);
    return collbench::kExitCouldNotRun;
  }
  if (cmd.kind == collbench::Command::Kind::Help || cmd.kind == collbench::Command::Kind::Version) {
    if (launched_as_rank_zero()) std::fputs(cmd.text.c_str(), stdout);
    return collbench::kExitOk;
  }
  using Kind = collbench::Command::Kind;
  if (cmd.kind != Kind::Run && cmd.kind != Kind::Hunt && cmd.kind != Kind::Fabric && cmd.kind != Kind::Preflight)
    return run_offline(cmd);

  // The nccl backend measures on blocking communicators (bench/nccl_lifecycle.h), and NCCL lets this
  // variable override that. Set, not cleared: NCCL copies ~/.nccl.conf, /etc/nccl.conf and
  // NCCL_CONF_FILE into the environment without overwriting (src/misc/param.cc). Before any thread
  // (MPI's, NCCL's) can read the environment.
  setenv("NCCL_COMM_BLOCKING", "1", 1);
  // NCCL_DEBUG* for the capture of NCCL's INFO log, set before MPI_Init starts threads that may read
  // the environment while it is written.
  if ((cmd.kind == Kind::Run || cmd.kind == Kind::Preflight) && collbench::built_with_nccl() &&
      cmd.run.backend != collbench::BackendKind::Mpi)
    collbench::prepare_nccl_debug_capture(collbench::default_nccl_capture_dir());
  // Before MPI_Init starts any thread: every thread then leaves the stop signals to ours.
  collbench::start_stop_signal_thread();
  int provided = 0;
  // A process that never starts holds the others in MPI_Init: after the command's own timeout (at
  // least 30 s) the ones that started say so, naming it where the launcher can tell.
  collbench::JoinWatch watch(std::max(30.0, cmd.kind == Kind::Fabric ? cmd.fabric.timeout_s : cmd.run.timeout_s));
  const int init = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  watch.joined();
  if (init != MPI_SUCCESS) {
    collbench::print_error("MPI_Init failed; launch with mpirun/srun or check the MPI install", 0);
    return collbench::kExitCouldNotRun;
  }
  std::vector<std::string> full{"collbench"};
  full.insert(full.end(), args.begin(), args.end());
  const int code = cmd.kind == Kind::Fabric      ? collbench::fabric_command(cmd, full)
                   : cmd.kind == Kind::Hunt      ? collbench::hunt_command(cmd, full)
                   : cmd.kind == Kind::Preflight ? collbench::preflight_command(cmd, full)
                                                 : collbench::run_command(cmd, full);
  MPI_Finalize();
  return code;
}
