// `collbench hunt`: one hunt phase, then finish.
#include "bench/mpi_control.h"
#include "launcher/commands/commands.h"
#include "launcher/commands/finish.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/phases/hunt_phase.h"

namespace collbench {

int hunt_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  const bool color = use_color(cmd.verdict.color);
  return finish_phase(control, cmd.verdict, color, hunt_phase(control, {cmd.run, cmd.hunt, argv, color}));
}

}  // namespace collbench
