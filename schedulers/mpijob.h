// `collbench launch k8s`: a Kubeflow MPIJob (kubeflow.org/v2beta1) that runs one collbench command,
// one worker pod per node with the node's GPUs and EFA devices, and the launcher running mpirun; or
// the user's own program (--command) the same way, optionally with the NCCL Inspector on every rank.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "schedulers/inspector_env.h"
#include "schedulers/job_env.h"

namespace collbench::launch {

struct K8sJob {
  std::string name = "collbench";  // an RFC 1123 label (k8s_names.h), checked by the caller
  std::string kube_namespace;      // empty: the current context's
  int nodes = 1;
  int gpus_per_node = 1;
  int efa_per_node = 0;            // vpc.amazonaws.com/efa per worker; 0: no EFA request, no hugepages
  std::string instance_type;       // the workers' nodeSelector; empty: none
  std::string image;
  std::string collbench = "collbench";  // the binary in the image
  std::vector<std::string> args;        // the collbench command, without the results option
  bool own_command = false;             // args are the user's program and its arguments, run as they are
  InspectorJob inspector;               // off unless its dir is set; the dir must be on a volume every worker mounts
  std::string inspector_claim;          // a PersistentVolumeClaim mounted at inspector.dir on every worker; may be empty
  std::vector<EnvSetting> env;          // set on the launcher and forwarded to every rank (mpirun -x)
  std::string written_by;
};

// The document, keys in the order a person reads them; schedulers/yaml_text.h writes it out.
nlohmann::ordered_json render_mpijob(const K8sJob& job);

// The longest job name whose worker pods ("<name>-worker-<index>") are still valid host names.
std::size_t max_job_name_length(int nodes);

}  // namespace collbench::launch
