#include "schedulers/prolog.h"

#include <fmt/format.h>

#include "schedulers/shell_quote.h"

namespace collbench::launch {

std::vector<std::string> prolog_check_command(const std::string& budget, const std::vector<std::string>& extra_args) {
  std::vector<std::string> check{"preflight", "--skip", "world,pairs,fabric", "--budget", budget, "--no-progress",
                                 "--color", "never"};
  check.insert(check.end(), extra_args.begin(), extra_args.end());
  return check;
}

std::string render_prolog(const PrologJob& job) {
  const std::vector<std::string> check = prolog_check_command(job.budget, job.extra_args);
  std::string s = "#!/bin/bash\n";
  s += "# collbench node check for Slurm. slurm.conf: Prolog=<this file> with PrologFlags=Alloc, or\n"
       "# HealthCheckProgram=<this file>. Without Alloc a Prolog runs inside the first step's launch, and a\n"
       "# check longer than MessageTimeout fails that step.\n";
  s += fmt::format("# Written by {}\n", job.written_by);
  s += fmt::format(
      "# Runs `collbench {}` on this node ({} local ranks). On a [FAIL] it prints the drain line{}.\n"
      "# It always exits 0: a Prolog that fails makes Slurm drain the node with a reason of its own.\n"
      "# The check's output: {}/collbench-node-check-<node>.log. COLLBENCH_DRAIN=1 or 0 overrides --drain.\n",
      shell_words(check), job.ranks, job.drain ? " and runs it" : " and does not run it (written without --drain)",
      job.log_dir);
  // Slurm gives a Prolog a bare environment: the system folders come after whatever PATH it has.
  s += "set -uo pipefail\nexport PATH=\"${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"\n\n";
  s += shell_exports(job.env);
  s += fmt::format("\nnode=${{SLURMD_NODENAME:-$(hostname -s)}}\ndrain=${{COLLBENCH_DRAIN:-{}}}\n", job.drain ? 1 : 0);
  s += fmt::format("log={}/collbench-node-check-\"$node\".log\n", shell_quote(job.log_dir));
  // Slurm keeps no Prolog output: each verdict line also goes to the log and to syslog.
  s += "say() { echo \"collbench: $*\"; echo \"collbench: $*\" >>\"$log\"; logger -t collbench \"$*\" 2>/dev/null; }\n";
  // The Prolog's environment names the job's allocation; this check is this node's alone.
  s += fmt::format(
      "env -u SLURM_JOB_ID -u SLURM_JOBID -u SLURM_NODELIST -u SLURM_JOB_NODELIST \\\n"
      "  {} --allow-run-as-root -np {} --host localhost:{} --bind-to none \\\n"
      "  {} {} >\"$log\" 2>&1\n",
      shell_quote(job.mpirun), job.ranks, job.ranks, shell_quote(job.collbench), shell_words(check));
  s += "rc=$?\n";
  s += "case $rc in\n"
       "  0) say \"$node passed its node check\" ;;\n"
       "  3)\n"
       "    codes=$(sed -n 's/^\\[FAIL\\] \\([A-Z0-9_]*\\).*/\\1/p' \"$log\" | sort -u | paste -sd, -)\n"
       "    reason=\"collbench node check: ${codes:-FAIL}\"\n"
       "    say \"$node failed its node check ($codes); see $log\"\n"
       "    say \"next step: scontrol update nodename=$node state=drain reason=\\\"$reason\\\"\"\n"
       "    if [ \"$drain\" = 1 ]; then\n"
       "      scontrol update nodename=\"$node\" state=drain reason=\"$reason\" && say \"drained $node\"\n"
       "    fi ;;\n"
       "  *) say \"$node: the check could not run (exit $rc), nothing judged; see $log\" ;;\n"
       "esac\n";
  s += "exit 0\n";
  return s;
}

}  // namespace collbench::launch
