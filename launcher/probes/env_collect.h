// This process's environment facts (reports/env/env_facts.h), their gathering on rank 0, and the
// capture of NCCL's own INFO log for reports/env/nccl_log.h.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bench/control.h"
#include "bench/gpu_probe.h"
#include "reports/env/env_facts.h"

#include "launcher/probes/nccl_capture.h"

namespace collbench {

struct CollectOptions {
  // EFA devices can come up late (p5en): when the instance type expects EFA and fewer devices are
  // seen, count again up to `efa_retries` times, `efa_retry_interval` apart.
  int efa_retries = 3;
  std::chrono::milliseconds efa_retry_interval{5000};
  int expected_efa_devices = 0;  // 0: one when the instance type is EFA-capable, else no retries
  // Where to look; tests point these at a fake tree.
  std::string dmi_product_name = "/sys/devices/virtual/dmi/id/product_name";
  std::string infiniband_dir = "/sys/class/infiniband";
  std::string shm_dir = "/dev/shm";
  std::string proc_mounts = "/proc/mounts";
  std::string dev_dir = device_dir();
  // The EFA installer's record of itself; "": $COLLBENCH_EFA_INSTALLED_PACKAGES, else /opt/amazon/efa_installed_packages.
  std::string efa_installed_packages;
};

// Facts about this process. Reads no MPI state beyond MPI_Get_library_version (allowed before
// MPI_Init). Call it before prepare_nccl_debug_capture(), or the NCCL_DEBUG it sets is left out
// anyway: variables the capture set are not reported as the user's.
report::RankEnv collect_local_env(int rank, const CollectOptions& options = {});

// Collective over MPI_COMM_WORLD: every process's facts on rank 0 (in rank order), `mine` alone on
// the others.
std::vector<report::RankEnv> gather_env(Control& control, const report::RankEnv& mine);

// ---- pieces of the above, exposed for tests ----

// The EC2 instance type in a DMI product_name file, or "" (file absent, or "Standard PC ...").
std::string read_instance_type(const std::string& dmi_product_name);
// Devices in an infiniband class dir named efa* or bound to the efa driver.
int count_efa_devices(const std::string& infiniband_dir);
// One such device: <infiniband_dir>/<name> named efa*, or whose device/driver links to efa.
bool is_efa_device(const std::string& device_dir);
// First aws-ofi-nccl library found, following NCCL_NET_PLUGIN's naming when it is set ("none": "").
std::string find_ofi_plugin(const std::string& nccl_net_plugin, const std::vector<std::string>& dirs);
// The directories find_ofi_plugin() searches for this process: LD_LIBRARY_PATH, the aws-ofi-nccl
// install dirs, /etc/ld.so.conf.d and the system library dirs.
std::vector<std::string> plugin_search_dirs();
// The version in an EFA installer's efa_installed_packages file (its "# EFA installer version: 1.29.0"
// line), or "" when the file or the line is absent.
std::string read_efa_installer_version(const std::string& efa_installed_packages);
// Filesystem type mounted at `mount_point` according to a /proc/mounts file, or "".
std::string mount_type(const std::string& mount_point, const std::string& proc_mounts);

}  // namespace collbench
