// `collbench fabric`: one fabric phase, then finish.
#include "bench/mpi_control.h"
#include "launcher/commands/commands.h"
#include "launcher/commands/finish.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/phases/fabric_phase.h"

namespace collbench {

int fabric_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  const bool color = use_color(cmd.verdict.color);
  return finish_phase(control, cmd.verdict, color, fabric_phase(control, {cmd.fabric, cmd.verdict, argv, color}));
}

}  // namespace collbench
