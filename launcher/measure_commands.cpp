// run, hunt and fabric: each is one phase over the job's control channel, then finish.
#include "bench/mpi_control.h"
#include "launcher/commands.h"
#include "launcher/fabric_phase.h"
#include "launcher/finish.h"
#include "launcher/hunt_phase.h"
#include "launcher/run_phase.h"
#include "launcher/verdicts.h"

namespace collbench {

int run_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  const bool color = use_color(cmd.verdict.color);
  RunPhaseSpec spec{cmd.run, cmd.verdict, argv, color, cmd.baseline, cmd.tolerance};
  return finish_phase(control, cmd.verdict, color, run_phase(control, spec));
}

int hunt_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  return finish_phase(control, cmd.verdict, use_color(cmd.verdict.color),
                      hunt_phase(control, {cmd.run, cmd.hunt, argv, use_color(cmd.verdict.color)}));
}

int fabric_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  return finish_phase(control, cmd.verdict, use_color(cmd.verdict.color),
                      fabric_phase(control, {cmd.fabric, cmd.verdict, argv, use_color(cmd.verdict.color)}));
}

}  // namespace collbench
