#include "launcher/verdicts/verdicts.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "bench/errors.h"
#include "launcher/inputs/installed.h"
#include "launcher/probes/env_collect.h"
#include "reports/thresholds/instance_types.h"
#include "reports/core/suggest.h"
#include "reports/thresholds/thresholds.h"

namespace collbench {
namespace fs = std::filesystem;
using report::Finding;

std::string resolve_instance_type(const VerdictOptions& v, const std::string& detected) {
  return report::normalized_instance_type(v.instance_type.empty() ? detected : v.instance_type);
}

std::string local_instance_type(const VerdictOptions& v) {
  return resolve_instance_type(v, read_instance_type(CollectOptions{}.dmi_product_name));
}

std::optional<report::InstanceThresholds> thresholds_for(const VerdictOptions& v, const std::string& instance_type) {
  try {
    if (v.thresholds == "none") return std::nullopt;
    const std::string where = v.thresholds.empty() ? default_thresholds_dir() : v.thresholds;
    if (fs::is_regular_file(where)) return report::load_thresholds_file(where);
    if (!v.thresholds.empty() && !fs::is_directory(where))
      throw UsageError(fmt::format("--thresholds '{}': no such file or folder; give a thresholds JSON file, a "
                                   "folder of them, or none",
                                   where));
    return report::find_thresholds(where, instance_type);
  } catch (const report::InputError& e) {
    throw UsageError(e.what());
  }
}

void check_verdict_inputs(VerdictOptions& v) {
  v.instance_type = report::normalized_instance_type(v.instance_type);
  // A file or folder that cannot be used throws UsageError here; a file's profile comes back.
  const auto profile = thresholds_for(v, v.instance_type);
  if (v.instance_type.empty() || report::looks_like_instance_type(v.instance_type)) return;
  // A name of the user's own (a profile written by `thresholds derive`) is fine where the
  // thresholds given have a profile by that name.
  if (profile && profile->instance_type == v.instance_type) return;
  const std::string where = v.thresholds.empty() || v.thresholds == "none" ? default_thresholds_dir() : v.thresholds;
  std::vector<std::string> known;
  if (fs::is_directory(where)) known = report::profile_names(where);
  const auto hint = report::did_you_mean(v.instance_type, known);
  throw UsageError(fmt::format("--instance-type '{}': not an EC2 instance type{}; {}", v.instance_type,
                               known.empty() ? "" : " nor a profile in " + where,
                               hint ? fmt::format("did you mean {}?", *hint)
                                    : "give one such as p5.48xlarge, or --thresholds FILE with a profile of that name"));
}

std::vector<Finding> threshold_findings(const VerdictOptions& v, const std::string& instance_type,
                                        const std::optional<report::InstanceThresholds>& t,
                                        const std::vector<report::CaseResult>& cases, const report::RunSpan& span) {
  if (v.thresholds == "none") return {report::thresholds_skipped("--thresholds none", /*chosen=*/true)};
  if (!t) {
    if (instance_type.empty())
      return {report::thresholds_skipped(
          "the instance type is unknown (no --instance-type, and this machine's DMI product name is not an EC2 "
          "instance type); relative checks only")};
    return {report::thresholds_skipped(fmt::format("no thresholds for {} in {}; relative checks only", instance_type,
                                                   v.thresholds.empty() ? default_thresholds_dir() : v.thresholds))};
  }
  return report::judge_thresholds(cases, *t, span);
}

namespace {

// The command name and parent of process `pid` (/proc/PID/stat), or false.
bool proc_stat(pid_t pid, std::string* comm, pid_t* parent) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto open = line.find('('), close = line.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 4 > line.size()) return false;
  *comm = line.substr(open + 1, close - open - 1);
  std::istringstream rest(line.substr(close + 2));
  std::string state;
  long ppid = 0;
  rest >> state >> ppid;
  *parent = static_cast<pid_t>(ppid);
  return true;
}

}  // namespace

bool launcher_terminal(int fd) {
  // The launcher on this host, a few parents up (rank processes of mpirun; orted's remote ranks find
  // none): what its own `fd` is open on tells whether a person watches.
  pid_t pid = getppid();
  for (int depth = 0; depth < 6 && pid > 1; ++depth) {
    std::string comm;
    pid_t parent = 0;
    if (!proc_stat(pid, &comm, &parent)) return false;
    if (comm == "mpirun" || comm == "mpiexec" || comm == "orterun" || comm == "prterun") {
      std::error_code ec;
      const auto target = std::filesystem::read_symlink(fmt::format("/proc/{}/fd/{}", pid, fd), ec).string();
      return !ec && (target.rfind("/dev/pts/", 0) == 0 || target.rfind("/dev/tty", 0) == 0);
    }
    pid = parent;
  }
  return false;
}

bool is_terminal(int fd) {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "SLURM_STEP_ID"})
    if (std::getenv(var) != nullptr) return launcher_terminal(fd);
  return isatty(fd) != 0;
}

bool use_color(const std::string& mode) {
  if (mode != "auto") return mode == "always";
  const char* term = std::getenv("TERM");
  return is_terminal(1) && term != nullptr && std::string(term) != "dumb";
}


}  // namespace collbench
