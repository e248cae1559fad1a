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

json env_list(const std::vector<EnvSetting>& env) {
  json out = json::array();
  for (const auto& e : env) out.push_back({{"name", e.name}, {"value", e.value}});
  return out;
}

// mpirun on the launcher; rank 0 writes the results document on the first worker, and a second
// mpirun of one process (the same first slot) prints it into the launcher's log (kubectl logs), which
// outlives the pods. collbench's exit code becomes the launcher pod's.
std::string launcher_script(const K8sJob& job) {
  std::string forwarded;
  for (const auto& e : job.env) forwarded += " -x " + e.name;
  return fmt::format(
      "mpirun --allow-run-as-root -np {} --map-by ppr:{}:node --bind-to none{} {} {} --json {}; rc=$?; "
      "echo '----- collbench results document -----'; mpirun --allow-run-as-root -np 1 cat {}; "
      "echo \"collbench: exit code $rc\"; exit $rc",
      job.nodes * job.gpus_per_node, job.gpus_per_node, forwarded, shell_quote(job.collbench), shell_words(job.args),
      kResults, kResults);
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
  if (!job.env.empty()) launcher_container["env"] = env_list(job.env);

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
  if (!job.env.empty()) worker_container["env"] = env_list(job.env);
  json worker_spec = json::object();
  if (!job.instance_type.empty())
    worker_spec["nodeSelector"] = {{"node.kubernetes.io/instance-type", job.instance_type}};
  worker_spec["containers"] = json::array({worker_container});
  // NCCL's shared-memory transport needs more /dev/shm than a container's default 64 MiB.
  worker_spec["volumes"] = json::array({{{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}}}}});

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
