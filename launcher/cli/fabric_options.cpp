#include "launcher/cli/fabric_options.h"

#include <fmt/format.h>

#include "bench/errors.h"
#include "launcher/cli/parse.h"
#include "bench/host_memory.h"
#include "bench/sizes.h"

namespace collbench {

CLI::App* add_fabric_subcommand(CLI::App& app, FabricOptions& o, FabricText& raw) {
  CLI::App* f = app.add_subcommand(
      "fabric", "Measure libfabric itself: RDM ping-pong latency and streaming bandwidth between scheduled pairs "
                "of nodes, judged against each other");
  f->add_option("--provider", o.provider,
                "libfabric provider (efa, tcp, ...; fi_info -l lists them) or auto: efa when offered, else the first "
                "RDM provider that can leave the host, said in the header")
      ->capture_default_str();
  f->add_option("-b,--minbytes", raw.b, "Smallest message size (K, M, G suffixes: 1024-based)")->default_str("8");
  f->add_option("-e,--maxbytes", raw.e, "Largest message size")->default_str("4M");
  f->add_option("-f,--stepfactor", o.factor, "Multiply by this between sizes")->capture_default_str();
  f->add_option("--latency-max", raw.latency_max, "Ping-pong latency at sizes up to this")->default_str("64K");
  f->add_option("--bandwidth-min", raw.bandwidth_min, "Streaming bandwidth at sizes from this")->default_str("64K");
  f->add_option("-n,--iters", o.iters, "Timed ping-pong iterations per size")->capture_default_str();
  f->add_option("-w,--warmup_iters", o.warmup, "Untimed ping-pong iterations per size")->capture_default_str();
  f->add_option("--bw-iters", o.bw_iters, "Timed stream iterations per size and direction")->capture_default_str();
  f->add_option("--bw-warmup", o.bw_warmup, "Untimed stream iterations per size and direction")->capture_default_str();
  f->add_option("--window", o.window, "Messages in flight per stream iteration")->capture_default_str();
  f->add_option("--pattern", o.pattern,
                "pairwise (every pair once, N-1 rounds), screen (a few ring/stride rounds) or auto (pairwise up to 8 "
                "nodes, else screen)")
      ->capture_default_str();
  f->add_option("--polling", o.polling,
                "How ranks wait for completions: spin (poll without pause, as fi_pingpong), yield (give the core up "
                "after each empty poll) or auto (spin where a machine's ranks fit on its cores, else yield)")
      ->capture_default_str();
  f->add_option("--timeout", o.timeout_s, "Seconds to wait for any one completion; past it the peer is named")
      ->capture_default_str();
  f->add_option("--budget", raw.budget,
                 "Wall time for the whole run, e.g. 300, 90s, 5m (default: 60 s plus 15 s per round and two for "
                 "confirmation); shared out over the rounds and their measurements, a slow measurement ends on time "
                 "with fewer samples; rounds it does not reach are reported as not measured")
      ->default_str("by the schedule");
  f->add_option("-o,--output,--json", o.output, "Write the fabric JSON document here (atomically)");
  f->add_option("--inject", raw.inject, "Testing only: silent:RANK makes that rank never answer")
      ->group("");  // hidden
  f->footer(
      "Exit codes: 0 ran, nothing failed; 1 could not run (libfabric or MPI failure, a peer that never answered); "
      "2 bad usage or input (unknown provider, provider without RDM, size beyond the provider's largest message); "
      "3 ran and at least one [FAIL]; 128+N stopped by signal N (143 SIGTERM, 130 SIGINT), the rounds so far in "
      "-o with \"complete\": false.\n"
      "Examples:\n  mpirun -np 16 -N 1 collbench fabric\n  mpirun -np 4 collbench fabric --provider tcp -b 8 -e 4M");
  return f;
}

void finish_fabric_options(FabricOptions& o, FabricText& raw) {
  if (!raw.b.empty()) o.min_bytes = parse_size(raw.b, "-b");
  if (!raw.e.empty()) o.max_bytes = parse_size(raw.e, "-e");
  if (!raw.latency_max.empty()) o.latency_max = parse_size(raw.latency_max, "--latency-max");
  if (!raw.bandwidth_min.empty()) o.bandwidth_min = parse_size(raw.bandwidth_min, "--bandwidth-min");
  if (o.min_bytes > o.max_bytes)
    throw UsageError(fmt::format("-b {} is larger than -e {}; give -b <= -e", size_text(o.min_bytes), size_text(o.max_bytes)));
  if (!(o.factor > 1)) throw UsageError(fmt::format("-f {:g}: the step factor must be above 1", o.factor));
  if (o.iters < 1) throw UsageError(fmt::format("-n {}: give at least 1 iteration", o.iters));
  if (o.bw_iters < 1) throw UsageError(fmt::format("--bw-iters {}: give at least 1 iteration", o.bw_iters));
  if (o.warmup < 0 || o.bw_warmup < 0) throw UsageError("-w and --bw-warmup must be 0 or more");
  if (o.window < 1 || o.window > 1024) throw UsageError(fmt::format("--window {}: give 1 to 1024", o.window));
  if (!(o.timeout_s > 0)) throw UsageError(fmt::format("--timeout {:g}: give a positive number of seconds", o.timeout_s));
  // One process's send and receive buffers; fabric_phase checks again with every rank on the node.
  check_host_buffers(o.max_bytes, 2, 1, "send and receive buffers");
  if (o.pattern != "auto" && o.pattern != "pairwise" && o.pattern != "screen")
    throw UsageError(fmt::format("--pattern '{}': use auto, pairwise or screen", o.pattern));
  if (o.polling != "auto" && o.polling != "spin" && o.polling != "yield")
    throw UsageError(fmt::format("--polling '{}': use auto, spin or yield", o.polling));
  if (!raw.budget.empty()) o.budget_s = parse_duration(raw.budget, "--budget");
  if (o.provider.empty()) throw UsageError("--provider: give a provider name (fi_info -l lists them) or auto");
  if (const std::string& inj = raw.inject; !inj.empty()) {
    try {
      if (inj.rfind("silent:", 0) != 0) throw std::invalid_argument(inj);
      std::size_t used = 0;
      o.silent_rank = std::stoi(inj.substr(7), &used);
      if (used != inj.size() - 7 || o.silent_rank < 0) throw std::invalid_argument(inj);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--inject '{}': expected silent:RANK", inj));
    }
  }
}

}  // namespace collbench
