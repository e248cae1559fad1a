// `collbench hunt`: one hunt phase, then finish.
#include "bench/mpi_control.h"
#include "launcher/commands/commands.h"
#include "launcher/commands/finish.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/phases/hunt_phase.h"

namespace collbench {

int hunt_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  return finish_phase(control, cmd.verdict, use_color(cmd.verdict.color),
                      hunt_phase(control, {cmd.run, cmd.hunt, argv, use_color(cmd.verdict.color)}));
}

}  // namespace collbench
