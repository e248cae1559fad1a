// What a command line asks for: the subcommand and its options as value types. Every layer below
// the command line reads these; nothing here parses or checks (launcher/cli/parse.h does).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/options.h"
#include "schedulers/inspector_env.h"

namespace collbench {

// How measurements become verdicts; shared by run, analyze and compare.
struct VerdictOptions {
  std::string thresholds;     // FILE, DIR or "none"; empty: the installed thresholds/ folder
  std::string instance_type;  // empty: the machine's DMI product name, if it is an EC2 type
  bool fail_on_warn = false;  // --fail-on warn: a WARN exits 3 too
  std::string color = "auto";
  std::string html;           // --html FILE: the report page of the command's document, written at the end
  std::string known_issues;   // --known-issues FILE or none; empty: known-issues.json beside the installed thresholds
};

struct AnalyzeOptions {
  std::vector<std::string> files;
  int nodes = 0;   // 0: inferred from the file
  std::string op;  // empty: inferred from the file
  std::string json;  // write the one file's results and verdict as a collbench document here
};

struct CompareOptions {
  std::string baseline, current;
  std::optional<double> tolerance;  // nullopt: report::default_tolerance
};

struct HuntOptions {
  std::string pattern = "auto";  // auto | pairwise | screen
  std::uint64_t bytes = 0;       // message size of every pair measurement; 0: chosen by a probe
  double budget_s = 0;           // the whole hunt's wall time; 0: by the schedule (default_budget_s)
  int iters = 200;               // most timed iterations per pair and round
};

// `collbench fabric`: libfabric RDM latency and bandwidth between node pairs.
struct FabricOptions {
  std::string provider = "auto";  // auto | a libfabric provider name
  std::uint64_t min_bytes = 8, max_bytes = 4ull << 20;
  double factor = 2;
  std::uint64_t latency_max = 64ull << 10;    // ping-pong at sizes <= this
  std::uint64_t bandwidth_min = 64ull << 10;  // streaming at sizes >= this
  int iters = 1000, warmup = 100;   // ping-pong
  int bw_iters = 20, bw_warmup = 2;  // stream, per direction
  int window = 16;
  std::string pattern = "auto";  // auto | pairwise | screen
  std::string polling = "auto";  // auto | spin | yield (bench/ofi/polling.h)
  double timeout_s = 30;
  std::string output;   // -o FILE: the JSON document
  double budget_s = 0;  // the whole run's wall time, checked between rounds; 0: by the schedule
  int silent_rank = -1;  // testing: this rank never answers (--inject silent:RANK)
};

// `collbench preflight`: every check in one launch, within one budget.
struct PreflightOptions {
  double budget_s = 600;
  double valid_for_s = 24 * 3600;  // the verdict's valid_until is this long after the end
  std::string json;                // the collbench.preflight/1 document
  std::vector<std::string> skip;   // phases left out on purpose: node, world, pairs, fabric
  std::uint64_t max_bytes = 0;     // the sweeps' largest size; 0: the largest the thresholds judge, else 256 MiB
  std::string provider = "auto";   // the fabric phase's libfabric provider
};

// `collbench launch slurm|k8s`: the file that runs a collbench command on a scheduler.
struct LaunchOptions {
  std::string target;  // slurm, k8s or prolog
  int nodes = 0;
  int tasks_per_node = 0;  // 0: the instance profile's GPUs
  std::string job_name;    // empty: collbench-<command>
  std::string partition, time_limit, container;
  std::string launcher = "auto";  // auto | srun | mpirun
  bool request_gpus = false;
  std::string output_dir;  // empty: the current directory
  std::string image, kube_namespace;
  std::string collbench = "collbench";  // the binary as the nodes (or the image) find it
  std::string output;                   // -o FILE; empty: stdout
  std::vector<std::string> command;     // the collbench command after -- (prolog: extra preflight options)
  bool own_command = false;             // --command: the words after -- are the user's own program
  std::string inspector_dir;            // --inspector DIR: the NCCL Inspector on, its logs in DIR/<job>
  std::string inspector_plugin;         // NCCL_PROFILER_PLUGIN as the ranks find it
  long inspector_interval_us = launch::InspectorJob::kDefaultIntervalUs;
  bool inspector_analyze = false;       // slurm: run collbench analyze after the job step
  std::string inspector_claim;          // k8s: a PersistentVolumeClaim mounted at DIR on the workers
  std::string mpirun = "mpirun";        // prolog: Open MPI's launcher on the node
  std::string budget = "2m";            // prolog: the node check's --budget
  bool drain = false;                   // prolog: run the drain line, not only print it
  std::string log_dir = "/var/tmp";     // prolog: where the check's output goes
  std::vector<std::string> env;         // --env NAME=VALUE, exported after the profile's settings
  std::vector<std::string> argv;        // this command line, for the file's header
};

struct ReportOptions {
  std::vector<std::string> files;  // collbench documents (or results analyze reads)
  std::string html;                // the page; "-" standard output
  std::string prom;                // Prometheus text file; "-" standard output
  std::string emf;                 // CloudWatch EMF lines; "-" standard output
  std::string emf_namespace = "collbench";
};

struct DeriveOptions {
  std::string run;
  double margin = 0.10;
  std::string output;  // empty: stdout
};

struct Command {
  enum class Kind {
    Run, Hunt, Fabric, Preflight, Analyze, Compare, DeriveThresholds, Launch, Report, Help, Version
  } kind = Kind::Help;
  RunOptions run;
  std::string baseline;  // run --baseline
  std::optional<double> tolerance;  // nullopt: report::default_tolerance
  VerdictOptions verdict;
  HuntOptions hunt;
  FabricOptions fabric;
  PreflightOptions preflight;
  AnalyzeOptions analyze;
  CompareOptions compare;
  DeriveOptions derive;
  LaunchOptions launch;
  ReportOptions report;
  std::string text;  // help or version text to print
};

}  // namespace collbench
