#include "schedulers/inspector_env.h"

#include <fmt/format.h>

namespace collbench::launch {
namespace {

// NVIDIA/nccl at 5067397c.
constexpr const char* kReadme =
    "https://github.com/NVIDIA/nccl/blob/5067397c/plugins/profiler/inspector/README.md";

}  // namespace

std::vector<EnvSetting> inspector_environment(const InspectorJob& inspector) {
  if (!inspector.enabled()) return {};
  return {
      {"NCCL_PROFILER_PLUGIN", inspector.plugin, "NCCL loads the Inspector as its profiler plugin",
       fmt::format("{} (line 70)", kReadme)},
      {"NCCL_INSPECTOR_ENABLE", "1", "the plugin records only when enabled", fmt::format("{} (line 72)", kReadme)},
      {"NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS", std::to_string(inspector.interval_us),
       "the logs grow while the job runs (the default, -1, writes them only when a communicator is torn down)",
       fmt::format("{} (lines 81-82)", kReadme)},
  };
}

std::string inspector_env_conflict(const std::string& name) {
  if (name == "NCCL_PROFILER_PLUGIN") return "--inspector sets it: give the plugin with --inspector-plugin";
  if (name == "NCCL_INSPECTOR_ENABLE") return "--inspector sets it";
  if (name == "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS")
    return "--inspector sets it: give the interval with --inspector-interval-us";
  if (name == kInspectorDumpDir) return "--inspector sets it to a folder of the job's own under --inspector";
  if (name == "NCCL_INSPECTOR_PROM_DUMP")  // README line 87: Prometheus textfiles instead of the JSON logs
    return "collbench analyze reads the Inspector's JSON logs, which the Prometheus mode replaces";
  return "";
}

}  // namespace collbench::launch
