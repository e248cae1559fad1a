// The NCCL Inspector on a job the launch files write: the profiler plugin's variables, and the
// folder its logs go to, one per job so that `collbench analyze` reads one job at a time.
// The names and defaults are NVIDIA/nccl's at 5067397c, plugins/profiler/inspector/README.md
// lines 68-92 (required and optional variables) and 139-148 (the Slurm example).
#pragma once

#include <string>
#include <vector>

#include "schedulers/job_env.h"

namespace collbench::launch {

struct InspectorJob {
  std::string dir;     // absolute, on storage every node (every pod) writes; empty: no Inspector
  std::string plugin;  // NCCL_PROFILER_PLUGIN: the .so's absolute path, or a name NCCL finds (inspector)
  long interval_us = kDefaultIntervalUs;  // NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS
  bool analyze = false;                   // Slurm: run `collbench analyze` on the logs after the job step
  bool enabled() const { return !dir.empty(); }

  // 0.1 s: the logs grow while the job runs (the plugin's default, -1, writes only at communicator
  // teardown, README line 82), and a collective ring of 1024 entries a communicator (line 91) is
  // drained ten times a second, so a job loses records only above 10,000 collectives a second.
  static constexpr long kDefaultIntervalUs = 100000;
};

// The variables every rank gets, in the order written: the plugin, the switch, the dump interval.
// NCCL_INSPECTOR_DUMP_DIR is not among them: it names the job's own folder, which only the job
// knows (Slurm's job id), so each launch file sets it itself.
std::vector<EnvSetting> inspector_environment(const InspectorJob& inspector);

inline constexpr const char* kInspectorDumpDir = "NCCL_INSPECTOR_DUMP_DIR";

// The names --env may not set beside --inspector: the ones the launch file sets, and the
// Prometheus switch (analyze reads the JSON logs and refuses the textfiles). Empty when allowed.
std::string inspector_env_conflict(const std::string& name);

}  // namespace collbench::launch
