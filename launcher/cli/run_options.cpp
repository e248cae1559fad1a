#include "launcher/cli/run_options.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "bench/collectives.h"
#include "bench/dtype.h"
#include "bench/errors.h"
#include "bench/sizes.h"
#include "reports/core/suggest.h"

namespace collbench {
namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// "OPTION: unknown name 'X'; did you mean Y? choose from A, B"; `choices` is a ", " list.
UsageError unknown_name(const std::string& option, const std::string& name, const std::string& choices,
                        const std::string& also = "") {
  std::vector<std::string> known;
  for (const auto& c : split_list(choices)) known.push_back(c.substr(c.find_first_not_of(' ')));
  const auto hint = report::did_you_mean(name, known);
  return UsageError(fmt::format("{}: unknown name '{}'; {}choose from {}{}", option, name,
                                hint ? fmt::format("did you mean {}? ", *hint) : "", choices, also));
}

// A comma-separated list of names, each parsed by `parse`; "all" expands to `every`.
template <class T, class Parse>
std::vector<T> parse_list(const std::string& text, const std::string& option, const std::string& choices,
                          const std::vector<T>& every, Parse parse) {
  std::vector<T> out;
  for (const auto& name : split_list(text)) {
    if (name == "all") {
      out.insert(out.end(), every.begin(), every.end());
      continue;
    }
    auto v = parse(name);
    if (!v) throw unknown_name(option, name, choices, " or all");
    out.push_back(*v);
  }
  if (out.empty()) throw UsageError(fmt::format("{}: empty list; name at least one of {}", option, choices));
  return out;
}

std::vector<Coll> parse_ops(const std::string& text) {
  std::vector<Coll> every;
  for (const auto& row : all_collectives()) every.push_back(row.coll);
  return parse_list(text, "--ops", coll_names(), every, parse_coll);
}

std::vector<DType> parse_dtypes(const std::string& text) {
  std::vector<DType> every;
  for (const auto& d : all_dtypes()) every.push_back(d.type);
  return parse_list(text, "-d", dtype_names(), every, parse_dtype);
}

FaultInjection parse_inject(const std::string& text) {
  FaultInjection f;
  std::vector<std::string> fields;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ':');) fields.push_back(item);
  if (fields.size() < 2 || fields.size() > 3)
    throw UsageError("--inject: expected KIND:RANK[:CASE] with KIND corrupt, hang, kill or setup");
  if (fields[0] == "corrupt") f.kind = FaultInjection::Kind::Corrupt;
  else if (fields[0] == "hang") f.kind = FaultInjection::Kind::Hang;
  else if (fields[0] == "kill") f.kind = FaultInjection::Kind::Kill;
  else if (fields[0] == "setup") f.kind = FaultInjection::Kind::Setup;
  else throw UsageError(fmt::format("--inject: unknown kind '{}'; use corrupt, hang, kill or setup", fields[0]));
  try {
    f.rank = std::stoi(fields[1]);
    f.at_case = fields.size() == 3 ? std::stoi(fields[2]) : 0;
  } catch (const std::exception&) {
    throw UsageError(fmt::format("--inject '{}': RANK and CASE must be integers", text));
  }
  return f;
}

}  // namespace

void add_run_options(CLI::App& run, RunOptions& o, RunText& raw) {
  run.add_option("--ops", raw.ops, "Collectives, comma separated: " + coll_names() + ", or all")
      ->default_str("all_reduce,all_to_all");
  run.add_option("-b,--minbytes", raw.b, "Smallest message size (K, M, G suffixes: 1024-based)")->default_str("8");
  run.add_option("-e,--maxbytes", raw.e, "Largest message size")->default_str("256M");
  run.add_option("-f,--stepfactor", o.factor, "Multiply the size by this factor between steps (> 1)")
      ->capture_default_str();
  run.add_option("-i,--stepbytes", raw.i, "Add this many bytes between steps instead of -f");
  run.add_option("-d,--datatype", raw.d, "Datatypes, comma separated: " + dtype_names() + ", or all")
      ->default_str("float");
  run.add_option("-o,--op", raw.o, "Reduction operation: " + redop_names())->default_str("sum");
  run.add_option("-r,--root", o.root, "Root rank of rooted collectives (broadcast)")->capture_default_str();
  run.add_option("--placement", raw.placement, "out (out-of-place), in (in-place) or both, as nccl-tests")
      ->default_str("both");
  run.add_option("-w,--warmup_iters", o.warmup, "Untimed iterations before timing each case")->capture_default_str();
  run.add_option("-n,--iters", raw.n,
                 "Timed iterations per case, or 'auto': stop when the relative standard error of the mean is under "
                 "--max-noise, after --min-samples and --min-time, or at --max-time")
      ->default_str("20");
  run.add_option("--min-samples", o.iters.min_samples, "auto: fewest timed iterations")->capture_default_str();
  run.add_option("--min-time", o.iters.min_time_s, "auto: least seconds of timed iterations")->capture_default_str();
  run.add_option("--max-time", o.iters.max_time_s, "auto: most seconds of timed iterations per case")
      ->capture_default_str();
  run.add_option("--max-noise", o.iters.max_noise, "auto: target relative standard error (0.01 = 1%)")
      ->capture_default_str();
  run.add_option("-c,--check", o.check_iters, "Checked (untimed) iterations per case; 0 skips the check")
      ->capture_default_str();
  run.add_option("--rank-reduce", raw.rank_reduce,
                 "How each iteration's times on all ranks become one: mean (nccl-tests), max, min or rank0")
      ->default_str("mean");
  run.add_option("--backend", raw.backend, "auto (nccl when a GPU is visible, else mpi), nccl or mpi")
      ->default_str("auto");
  run.add_option("--scope", raw.scope,
                 "world (every rank in one collective), node (each node's ranks, all nodes at once) or rail (local "
                 "rank i of every node, all rails at once)")
      ->default_str("world");
  run.add_option("-g,--ngpus", o.gpus, "GPUs driven by each process (nccl backend)")->capture_default_str();
  run.add_option("-G,--cudagraph", o.graph_calls,
                 "nccl backend: capture N calls in one CUDA graph per GPU and time graph launches, each sample one "
                 "launch's time / N (no per-call launch cost). nccl-tests' -G counts launches of one graph of -n calls "
                 "instead: both time -n x N calls. 0: no graphs")
      ->capture_default_str();
  run.add_option("--timeout", o.timeout_s,
                 "Seconds one step of a case (set-up, a batch of iterations, the check) may take before the run is "
                 "ended as hung; batches are cut to a quarter of it")
      ->capture_default_str();
  run.add_option("--json", o.json_path, "Write the results document here (cases are appended to FILE.partial as "
                                        "they finish)");
  run.add_flag("--no-progress", raw.no_progress, "No progress line on stderr");

  run.add_option("--inject", raw.inject, "Test only: KIND:RANK[:CASE], KIND corrupt|hang|kill|setup")
      ->group("");  // hidden
  // nccl-tests options collbench does not implement: refused by name, never silently ignored.
  run.add_option("-z,--blocking", raw.z, "nccl-tests' blocking collectives: not implemented")->group("");
  run.add_option("-m,--agg_iters", raw.m, "nccl-tests' aggregated iterations: not implemented")->group("");
}

std::string canonical_op(const std::string& text, const std::string& option) {
  const auto c = parse_coll(text);
  if (!c) throw unknown_name(option, text, coll_names());
  return std::string(collective_info(*c).name);
}

void finish_run_options(RunOptions& o, RunText& raw) {
  if (!raw.z.empty())
    throw UsageError(fmt::format("-z {}: nccl-tests' blocking mode (a stream synchronize and a barrier after every "
                                 "call) is not implemented in collbench; drop -z",
                                 raw.z));
  if (!raw.m.empty())
    throw UsageError(fmt::format("-m {}: nccl-tests' aggregated iterations (several calls in one NCCL group) are not "
                                 "implemented in collbench; drop -m",
                                 raw.m));
  if (!raw.ops.empty()) o.ops = parse_ops(raw.ops);
  if (!raw.d.empty()) o.dtypes = parse_dtypes(raw.d);
  if (!raw.b.empty()) o.min_bytes = parse_size(raw.b, "-b");
  if (!raw.e.empty()) o.max_bytes = parse_size(raw.e, "-e");
  if (!raw.i.empty()) {
    o.step_bytes = parse_size(raw.i, "-i");
    if (o.step_bytes == 0) throw UsageError("-i 0: the step must be at least one byte");
  }
  if (!raw.o.empty()) {
    auto op = parse_redop(raw.o);
    if (!op) throw UsageError(fmt::format("-o: unknown reduction '{}'; choose from {}", raw.o, redop_names()));
    o.redop = *op;
  }
  const std::string& placement = raw.placement;
  if (placement == "out") o.placements = {Placement::OutOfPlace};
  else if (placement == "in") o.placements = {Placement::InPlace};
  else if (!placement.empty() && placement != "both")
    throw UsageError(fmt::format("--placement '{}': use out, in or both", placement));
  const std::string& n = raw.n;
  if (n == "auto") {
    o.iters.adaptive = true;
  } else if (!n.empty()) {
    try {
      std::size_t used = 0;
      o.iters.fixed = std::stoi(n, &used);
      if (used != n.size()) throw std::invalid_argument(n);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("-n '{}': give a number of iterations or 'auto'", n));
    }
  }
  if (!o.iters.adaptive && o.iters.fixed < 1) throw UsageError("-n must be at least 1 (or auto)");
  if (o.iters.adaptive && (o.iters.min_samples < 2 || o.iters.max_noise <= 0 || o.iters.max_time_s <= 0))
    throw UsageError("-n auto needs --min-samples >= 2, --max-noise > 0 and --max-time > 0");
  if (o.warmup < 0) throw UsageError("-w must not be negative");
  if (o.check_iters < 0) throw UsageError("-c must not be negative");
  if (o.gpus < 1) throw UsageError("-g must be at least 1");
  if (o.graph_calls < 0 || o.graph_calls > 4096)
    throw UsageError(fmt::format("-G {}: calls per CUDA graph must be 0 (no graphs) to 4096", o.graph_calls));
  if (!(o.timeout_s > 0)) throw UsageError("--timeout must be a positive number of seconds");
  if (const std::string& how = raw.rank_reduce; !how.empty() && !parse_rank_reduce(how, &o.rank_reduce))
    throw UsageError(fmt::format("--rank-reduce '{}': use mean, max, min or rank0", how));
  const std::string& scope = raw.scope;
  if (scope == "node") o.scope = Scope::Node;
  else if (scope == "rail") o.scope = Scope::Rail;
  else if (!scope.empty() && scope != "world")
    throw UsageError(fmt::format("--scope '{}': use world, node or rail", scope));
  const std::string& backend = raw.backend;
  if (backend == "nccl") o.backend = BackendKind::Nccl;
  else if (backend == "mpi") o.backend = BackendKind::Mpi;
  else if (!backend.empty() && backend != "auto")
    throw UsageError(fmt::format("--backend '{}': use auto, nccl or mpi", backend));
  if (raw.no_progress == "true" || raw.no_progress == "1") o.progress = false;

  if (!raw.inject.empty()) o.inject = parse_inject(raw.inject);
  if (!raw.o.empty() &&
      std::none_of(o.ops.begin(), o.ops.end(), [](Coll c) { return collective_info(c).reduces; }))
    throw UsageError(fmt::format("-o {}: none of the chosen collectives reduces; drop -o", raw.o));
}


}  // namespace collbench
