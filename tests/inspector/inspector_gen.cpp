// Writes a simulated job's NCCL Inspector logs (tests/inspector/simulated_job.h) into a directory,
// for trying `collbench analyze DIR` by hand and for the benchmark's inputs.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>

#include "tests/inspector/simulated_job.h"

int main(int argc, char** argv) {
  using collbench::inspector_sim::Fault;
  collbench::inspector_sim::JobSpec spec;
  std::string dir, fault = "none";
  CLI::App app{"Write a simulated job's NCCL Inspector logs"};
  app.add_option("dir", dir, "Directory to write <host>-pid<pid>.log files into")->required();
  app.add_option("--hosts", spec.hosts, "Hosts")->check(CLI::PositiveNumber);
  app.add_option("--gpus", spec.gpus, "Ranks per host")->check(CLI::PositiveNumber);
  app.add_option("--collectives", spec.collectives, "Collectives per communicator")->check(CLI::PositiveNumber);
  app.add_option("--fault", fault, "none, late, slow, hang, link or drift")
      ->check(CLI::IsMember({"none", "late", "slow", "hang", "link", "drift"}));
  app.add_option("--fault-rank", spec.fault_rank, "The late or hung rank");
  app.add_option("--fault-host", spec.fault_host, "The slow host's index (link: one end)");
  app.add_option("--link-host", spec.link_host, "link: the other end's index");
  app.add_flag("--drift-step", spec.drift_step, "drift: all at once halfway, not linearly");
  app.add_option("--drift-host", spec.drift_host, "drift: only this host's communicators (default: all)");
  app.add_option("--noise", spec.noise, "Step-to-step noise of a collective's time (sigma, as a share)");
  app.add_flag("--pairs", spec.pairs, "Add one communicator per neighbouring pair of hosts");
  app.add_option("--world-bytes", spec.world_bytes, "The world AllReduce's size in bytes");
  app.add_option("--world-gbs", spec.world_gbs, "The world AllReduce's healthy busbw (GB/s)");
  app.add_option("--seed", spec.seed, "Random seed");
  app.add_option("--version", spec.version, "inspector_output_format_version to write");
  app.add_flag("--truncate", spec.truncate_last, "Cut the first file's last line short");
  CLI11_PARSE(app, argc, argv);
  const std::map<std::string, Fault> faults{
      {"none", Fault::None}, {"late", Fault::LateRank}, {"slow", Fault::SlowNode}, {"hang", Fault::Hang},
      {"link", Fault::SlowLink}, {"drift", Fault::Drift}};
  spec.fault = faults.at(fault);
  const auto n = collbench::inspector_sim::write_job(spec, dir);
  std::printf("%llu records from %d ranks in %s\n", static_cast<unsigned long long>(n), spec.hosts * spec.gpus,
              dir.c_str());
  return 0;
}
