// `collbench run`: one sweep phase, then finish.
#include "bench/mpi_control.h"
#include "launcher/commands/commands.h"
#include "launcher/commands/finish.h"
#include "launcher/verdicts/verdicts.h"
#include "launcher/phases/run_phase.h"

namespace collbench {

int run_command(const Command& cmd, const std::vector<std::string>& argv) {
  MpiControl control;
  const bool color = use_color(cmd.verdict.color);
  RunPhaseSpec spec{cmd.run, cmd.verdict, argv, color, cmd.baseline, cmd.tolerance};
  return finish_phase(control, cmd.verdict, color, run_phase(control, spec));
}

}  // namespace collbench
