#include "launcher/cli/launch_own_options.h"

#include <fmt/format.h>

#include <array>
#include <filesystem>

#include "bench/errors.h"
#include "schedulers/inspector_env.h"
#include "schedulers/k8s_names.h"

namespace collbench {
namespace {

// The options that mean nothing without --inspector DIR.
constexpr std::array<const char*, 4> kNeedInspector = {"--inspector-plugin", "--inspector-interval-us",
                                                        "--inspector-analyze", "--inspector-volume-claim"};

bool given(const CLI::App& sub, const char* name) {
  try {
    return sub.count(name) > 0;
  } catch (const CLI::OptionNotFound&) {
    return false;  // declared on the other target only
  }
}

// --command: the words after -- run as they are; a collbench command there is a mistake either way.
void check_own_command(const LaunchOptions& o, const CLI::App& sub) {
  const std::string program = std::filesystem::path(o.command.front()).filename().string();
  if (program == "collbench")
    throw UsageError("--command runs your own program; to launch collbench, drop --command and the word 'collbench' "
                     "(the job then writes collbench's results document)");
  for (const char* sub_name : {"run", "hunt", "fabric", "preflight"})
    if (o.command.front() == sub_name)
      throw UsageError(fmt::format("--command with '{0}' after --: '{0}' is a collbench command; drop --command to "
                                   "launch collbench {0}, or give your program's path (./{0})",
                                   sub_name));
  if (given(sub, "--collbench") && o.inspector_dir.empty())
    throw UsageError("--collbench names collbench on the nodes, which a job run with --command does not run: drop it "
                     "(it is for --inspector's analyze line)");
}

void check_plugin(const std::string& plugin) {
  if (plugin.empty())
    throw UsageError("--inspector needs --inspector-plugin: libnccl-profiler-inspector.so as the ranks find it, an "
                     "absolute path on the nodes (in the image with --container or on Kubernetes), or 'inspector' "
                     "when it is on their library path");
  if (plugin.front() != '/' && plugin.find('/') != std::string::npos)
    throw UsageError(fmt::format("--inspector-plugin '{}': give an absolute path (the ranks' working folder is not "
                                 "known) or a bare name NCCL finds on the library path, e.g. inspector",
                                 plugin));
}

void check_inspector(const LaunchOptions& o, bool slurm, bool container) {
  const std::string& dir = o.inspector_dir;
  if (dir.empty() || dir.front() != '/')
    throw UsageError(fmt::format("--inspector '{}': give an absolute folder every node writes and the analysing "
                                 "machine reads (each job's logs go into a folder of its own in it)",
                                 dir));
  // Pyxis separates its mounts with ',' and ':'; a Kubernetes mountPath cannot hold ':'.
  const std::string bad = slurm ? (container ? "\n,:" : "\n") : "\n:";
  if (dir.find_first_of(bad) != std::string::npos)
    throw UsageError(fmt::format("--inspector '{}': choose a path without a newline{}", dir,
                                 slurm ? (container ? ", ',' or ':' (--container mounts it with Pyxis)" : "")
                                       : " or ':' (a Kubernetes mountPath)"));
  check_plugin(o.inspector_plugin);
  if (o.inspector_interval_us <= 0)
    throw UsageError(fmt::format("--inspector-interval-us {}: give a positive interval (the plugin's -1 writes only "
                                 "when a communicator is torn down, none for a job that is killed; 0 writes "
                                 "without pause)",
                                 o.inspector_interval_us));
  for (const auto& e : o.env)
    if (const std::string why = launch::inspector_env_conflict(e.substr(0, e.find('='))); !why.empty())
      throw UsageError(fmt::format("--env '{}' with --inspector: {}", e, why));
  if (!o.inspector_claim.empty())
    if (const std::string why = launch::label_problem(o.inspector_claim); !why.empty())
      throw UsageError(fmt::format("--inspector-volume-claim '{}' is not a valid claim name: {} (RFC 1123 label)",
                                   o.inspector_claim, why));
}

}  // namespace

void add_own_job_options(CLI::App& sub, LaunchOptions& o, bool slurm) {
  sub.add_flag("--command", o.own_command,
               "The words after -- are your own program and its arguments (e.g. -- python train.py), run on every "
               "rank as they are, with the same environment and launcher; the job's exit code is the program's");
  sub.add_option("--inspector", o.inspector_dir,
                 "Turn on NCCL's Inspector for every rank; each job writes its logs into a folder of its own under "
                 "this absolute DIR (on storage every node writes), for collbench analyze");
  sub.add_option("--inspector-plugin", o.inspector_plugin,
                 "NCCL_PROFILER_PLUGIN: libnccl-profiler-inspector.so as the ranks find it (an absolute path, in the "
                 "image when the ranks run in one), or 'inspector' when it is on their library path; required "
                 "with --inspector");
  sub.add_option("--inspector-interval-us", o.inspector_interval_us,
                 "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS: how often each process writes its log")
      ->capture_default_str();
  if (slurm)
    sub.add_flag("--inspector-analyze", o.inspector_analyze,
                 "After the job step, run collbench analyze on the logs (on the batch host, with --collbench) and "
                 "write its verdict beside the job log; the job's exit code stays the step's");
  else
    sub.add_option("--inspector-volume-claim", o.inspector_claim,
                   "A PersistentVolumeClaim (ReadWriteMany) to mount at the --inspector DIR on every worker");
}

void finish_own_job_options(LaunchOptions& o, const CLI::App& sub, bool slurm, bool container) {
  if (o.own_command) {
    check_own_command(o, sub);
    if (o.job_name.empty())
      o.job_name = "collbench-" + launch::as_label(std::filesystem::path(o.command.front()).filename().string(), 30);
  }
  if (!given(sub, "--inspector")) {
    for (const char* name : kNeedInspector)
      if (given(sub, name)) throw UsageError(fmt::format("{} needs --inspector DIR, the folder for the logs", name));
    return;
  }
  check_inspector(o, slurm, container);
}

}  // namespace collbench
