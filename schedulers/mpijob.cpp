#include "schedulers/mpijob.h"

#include <fmt/format.h>

#include "schedulers/shell_quote.h"

namespace collbench::launch {
namespace {

using json = nlohmann::ordered_json;

// aws-samples/awsome-distributed-training at 0162aac, micro-benchmarks/nccl-tests/kubernetes/nccl-tests.yaml:
// the worker's hugepages and memory for NCCL over EFA.
constexpr const char* kHugepages = "5120Mi";
constexpr const char* kMemory = "32000Mi";
constexpr const char* kResults = "/tmp/collbench-results.json";

json env_list(const K8sJob& job) {
  json out = json::array();
  for (const auto& e : job.env) out.push_back({{"name", e.name}, {"value", e.value}});
  for (const auto& e : inspector_environment(job.inspector)) out.push_back({{"name", e.name}, {"value", e.value}});
  return out;
}

// The Inspector's folder for this run, named by the job and the time it started (Kubernetes gives
// the ranks no job id), made once on the first worker before any rank starts: the plugin makes only
// the last level, and a rank that loses the race to make it writes no log (NVIDIA/nccl at 5067397c,
// plugins/profiler/inspector/inspector.cc lines 408-443).
std::string inspector_prologue(const K8sJob& job) {
  if (!job.inspector.enabled()) return "";
  return fmt::format(
      "export {}={}/{}-$(date -u +%Y%m%d-%H%M%S); "
      "mpirun --allow-run-as-root -np 1 mkdir -p \"${}\" || {{ echo \"collbench: cannot create the Inspector folder "
      "${} on the workers (is a volume mounted at {}?)\"; exit 1; }}; ",
      kInspectorDumpDir, shell_quote(job.inspector.dir), job.name, kInspectorDumpDir, kInspectorDumpDir,
      job.inspector.dir);
}

std::string forwarded_env(const K8sJob& job) {
  std::string forwarded;
  for (const auto& e : job.env) forwarded += " -x " + e.name;
  for (const auto& e : inspector_environment(job.inspector)) forwarded += " -x " + e.name;
  if (job.inspector.enabled()) forwarded += std::string(" -x ") + kInspectorDumpDir;
  return forwarded;
}

// mpirun on the launcher; rank 0 writes the results document on the first worker, and a second
// mpirun of one process (the same first slot) prints it into the launcher's log (kubectl logs), which
// outlives the pods. collbench's exit code becomes the launcher pod's; with --command, the program's.
std::string launcher_script(const K8sJob& job) {
  const std::string mpirun = fmt::format("mpirun --allow-run-as-root -np {} --map-by ppr:{}:node --bind-to none{}",
                                         job.nodes * job.gpus_per_node, job.gpus_per_node, forwarded_env(job));
  std::string inspector_end;
  if (job.inspector.enabled())
    inspector_end = fmt::format("echo \"collbench: NCCL Inspector logs in ${} on the workers' volume; judge them with: "
                                "{} analyze ${}\"; ",
                                kInspectorDumpDir, shell_quote(job.collbench), kInspectorDumpDir);
  if (job.own_command)
    return fmt::format("{}{} {}; rc=$?; echo \"collbench: exit code $rc\"; {}exit $rc", inspector_prologue(job), mpirun,
                       shell_words(job.args), inspector_end);
  return fmt::format(
      "{}{} {} {} --json {}; rc=$?; "
      "echo '----- collbench results document -----'; mpirun --allow-run-as-root -np 1 cat {}; "
      "echo \"collbench: exit code $rc\"; {}exit $rc",
      inspector_prologue(job), mpirun, shell_quote(job.collbench), shell_words(job.args), kResults, kResults,
      inspector_end);
}

}  // namespace

std::size_t max_job_name_length(int nodes) {
  return 63 - std::string("-worker-").size() - std::to_string(std::max(nodes - 1, 0)).size();
}

json render_mpijob(const K8sJob& job) {
  json metadata{{"name", job.name}};
  if (!job.kube_namespace.empty()) metadata["namespace"] = job.kube_namespace;
  metadata["labels"] = {{"app.kubernetes.io/name", "collbench"}};
  metadata["annotations"] = {{"collbench.io/written-by", job.written_by}};

  json launcher_container{{"name", "collbench-launcher"},
                          {"image", job.image},
                          {"imagePullPolicy", "IfNotPresent"},
                          {"command", json::array({"/bin/bash", "-c", launcher_script(job)})}};
  const json env = env_list(job);
  if (!env.empty()) launcher_container["env"] = env;

  json limits{{"nvidia.com/gpu", std::to_string(job.gpus_per_node)}};
  if (job.efa_per_node > 0) {
    limits["vpc.amazonaws.com/efa"] = std::to_string(job.efa_per_node);
    limits["hugepages-2Mi"] = kHugepages;
  }
  limits["memory"] = kMemory;
  json worker_container{
      {"name", "collbench-worker"},
      {"image", job.image},
      {"imagePullPolicy", "IfNotPresent"},
      // The MPI Operator's launcher reaches the workers over ssh.
      {"command", json::array({"/usr/sbin/sshd", "-De"})},
      // IPC_LOCK: EFA and NCCL register (lock) memory beyond RLIMIT_MEMLOCK, as an unlimited memlock allows.
      {"securityContext", {{"capabilities", {{"add", json::array({"IPC_LOCK"})}}}}},
      {"resources", {{"limits", limits}, {"requests", limits}}},
      {"volumeMounts", json::array({{{"name", "dshm"}, {"mountPath", "/dev/shm"}}})}};
  if (!job.inspector_claim.empty())
    worker_container["volumeMounts"].push_back({{"name", "inspector"}, {"mountPath", job.inspector.dir}});
  if (!env.empty()) worker_container["env"] = env;
  json worker_spec = json::object();
  if (!job.instance_type.empty())
    worker_spec["nodeSelector"] = {{"node.kubernetes.io/instance-type", job.instance_type}};
  worker_spec["containers"] = json::array({worker_container});
  // NCCL's shared-memory transport needs more /dev/shm than a container's default 64 MiB.
  worker_spec["volumes"] = json::array({{{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}}}}});
  // The Inspector's logs must outlive the pods and be read in one place: a shared claim.
  if (!job.inspector_claim.empty())
    worker_spec["volumes"].push_back(
        {{"name", "inspector"}, {"persistentVolumeClaim", {{"claimName", job.inspector_claim}}}});

  return {{"apiVersion", "kubeflow.org/v2beta1"},
          {"kind", "MPIJob"},
          {"metadata", metadata},
          {"spec",
           {{"slotsPerWorker", job.gpus_per_node},
            // A check is not retried: a second attempt would hide the first one's failure.
            {"runPolicy", {{"cleanPodPolicy", "Running"}, {"backoffLimit", 0}}},
            {"mpiReplicaSpecs",
             {{"Launcher",
               {{"replicas", 1},
                {"template", {{"spec", {{"restartPolicy", "Never"}, {"containers", json::array({launcher_container})}}}}}}},
              {"Worker", {{"replicas", job.nodes}, {"template", {{"spec", worker_spec}}}}}}}}}};
}

}  // namespace collbench::launch
