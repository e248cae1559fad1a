// Shared by run, analyze, compare and report: which instance type and thresholds apply, their
// findings, and whether output is coloured. Not here: the rules themselves (reports/), the run's
// other verdicts (run_verdicts.h) and the exit code (finish() and report::exit_code_for).
#pragma once

#include <string>
#include <vector>

#include "launcher/cli/command.h"
#include "reports/core/findings.h"
#include "reports/core/result.h"
#include "reports/thresholds/threshold_verdicts.h"

namespace collbench {

// The instance type to judge against: --instance-type, else `detected` (the DMI product name).
std::string resolve_instance_type(const VerdictOptions& v, const std::string& detected);

// resolve_instance_type with this machine's DMI product name, for commands that read no environment.
std::string local_instance_type(const VerdictOptions& v);

// The thresholds --thresholds and the instance type select, if any. A broken thresholds file throws
// UsageError naming the file, the key and the fix.
std::optional<report::InstanceThresholds> thresholds_for(const VerdictOptions& v, const std::string& instance_type);

// Findings of these cases against `t` (from thresholds_for), or one INFO saying why none applied.
std::vector<report::Finding> threshold_findings(const VerdictOptions& v, const std::string& instance_type,
                                                const std::optional<report::InstanceThresholds>& t,
                                                const std::vector<report::CaseResult>& cases,
                                                const report::RunSpan& span);


// Checks --instance-type and --thresholds before anything runs, and lower-cases the instance type
// (EC2 names are lower case; matching ignores case). A name that is not an EC2 instance type, or a
// thresholds file or folder that cannot be used, is a UsageError naming it and the fix, with the
// nearest profile when the name looks like a typo of one.
void check_verdict_inputs(VerdictOptions& v);

// MPI launchers hand ranks a pseudo-terminal even when their output goes to a file, so a terminal
// seen under a launcher proves nothing: there, what the launcher's own `fd` is open on decides (a
// terminal only when mpirun on this host writes to one).
bool is_terminal(int fd);
bool launcher_terminal(int fd);
bool use_color(const std::string& mode);

}  // namespace collbench
