// The launch files' pure parts: shell words, YAML text, Kubernetes names, the sbatch script and the
// MPIJob document, line by line where a line is the contract.
#include <gtest/gtest.h>

#include <algorithm>

#include "schedulers/job_env.h"
#include "schedulers/k8s_names.h"
#include "schedulers/mpijob.h"
#include "schedulers/prolog.h"
#include "schedulers/sbatch.h"
#include "schedulers/shell_quote.h"
#include "schedulers/yaml_text.h"

namespace collbench::launch {
namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(ShellQuote, PlainWordsStayAndTheRestIsSingleQuoted) {
  EXPECT_EQ(shell_quote("--budget"), "--budget");
  EXPECT_EQ(shell_quote("/opt/collbench/bin/collbench"), "/opt/collbench/bin/collbench");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_words({"run", "--ops", "all_reduce all_to_all"}), "run --ops 'all_reduce all_to_all'");
}

TEST(YamlText, StringsAreQuotedSoNoneChangesType) {
  nlohmann::ordered_json doc{{"kind", "MPIJob"},
                             {"values", {"on", "null", "1e3", "0755", "a: b", "x\ny"}},
                             {"count", 3},
                             {"nvidia.com/gpu", "8"},
                             {"odd key", true},
                             {"empty", nlohmann::ordered_json::object()},
                             {"items", {{{"name", "dshm"}, {"mountPath", "/dev/shm"}}}}};
  EXPECT_EQ(to_yaml(doc),
            "kind: \"MPIJob\"\n"
            "values:\n"
            "  - \"on\"\n"
            "  - \"null\"\n"
            "  - \"1e3\"\n"
            "  - \"0755\"\n"
            "  - \"a: b\"\n"
            "  - \"x\\ny\"\n"
            "count: 3\n"
            "nvidia.com/gpu: \"8\"\n"
            "\"odd key\": true\n"
            "empty: {}\n"
            "items:\n"
            "  - name: \"dshm\"\n"
            "    mountPath: \"/dev/shm\"\n");
}

TEST(K8sNames, Rfc1123LabelsAndASuggestion) {
  EXPECT_EQ(label_problem("collbench-preflight"), "");
  EXPECT_NE(label_problem("Collbench").find("'C'"), std::string::npos);
  EXPECT_NE(label_problem("-a").find("start and end"), std::string::npos);
  EXPECT_NE(label_problem("a_b").find("'_'"), std::string::npos);
  EXPECT_NE(label_problem(std::string(64, 'a')).find("64 characters"), std::string::npos);
  EXPECT_EQ(label_problem(""), "it is empty");
  EXPECT_EQ(as_label("My_Job.2"), "my-job-2");
  EXPECT_EQ(as_label("__"), "collbench");
  // "<name>-worker-<index>" is a pod's host name: at most 63 characters.
  EXPECT_EQ(max_job_name_length(4), 63u - 8 - 1);
  EXPECT_EQ(max_job_name_length(100), 63u - 8 - 2);
}

SlurmJob job() {
  SlurmJob j;
  j.job_name = "collbench-preflight";
  j.nodes = 4;
  j.tasks_per_node = 8;
  j.instance_type = "p5.48xlarge";
  j.output_dir = "/fsx/results";
  j.args = {"preflight", "--budget", "10m"};
  j.env = efa_environment("p5.48xlarge", report::HardwareProfile{8, "H100", 32, 3200, ""});
  j.written_by = "test";
  return j;
}

TEST(Sbatch, OneRankPerGpuTheEnvironmentWithSourcesAndTheExitCode) {
  const std::string s = render_sbatch(job());
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line : {"#SBATCH --job-name=collbench-preflight", "#SBATCH --nodes=4", "#SBATCH --ntasks-per-node=8",
                           "#SBATCH --exclusive", "#SBATCH --output=/fsx/results/%x-%j.out", "export FI_PROVIDER=efa",
                           "export FI_EFA_USE_DEVICE_RDMA=1", "result=\"$out_dir/collbench-$SLURM_JOB_ID.json\"",
                           "exit \"$rc\""})
    EXPECT_TRUE(has_line(s, line)) << line << "\n" << s;
  EXPECT_EQ(s.find("--gpus-per-node"), std::string::npos) << "GRES only when asked";
  EXPECT_EQ(s.find("--partition"), std::string::npos);
  // Every exported variable says where it comes from, on the two lines before it.
  std::size_t exports = 0, at = 0;
  while ((at = s.find("\nexport ", at + 1)) != std::string::npos) {
    ++exports;
    const std::size_t prev = s.rfind('\n', at - 1);
    EXPECT_EQ(s.compare(prev + 1, 12, "#   source: "), 0) << s.substr(prev, at - prev);
  }
  EXPECT_EQ(exports, 4u);
  EXPECT_NE(s.find("srun) srun --mpi=pmix --cpu-bind=none collbench preflight --budget 10m --json \"$result\" ;;"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("mpirun) mpirun -np \"$SLURM_NTASKS\" --map-by ppr:8:node --bind-to none -x FI_PROVIDER"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("board_asset_tag"), std::string::npos);
}

TEST(Sbatch, AContainerRunsUnderPyxisWithTheResultsFolderMounted) {
  SlurmJob j = job();
  j.container = "registry.example/collbench:1";
  j.partition = "p5";
  j.request_gpus = true;
  j.args = {"run", "--ops", "all_reduce all_to_all"};
  const std::string s = render_sbatch(j);
  EXPECT_TRUE(has_line(s, "#SBATCH --partition=p5")) << s;
  EXPECT_TRUE(has_line(s, "#SBATCH --gpus-per-node=8")) << s;
  EXPECT_TRUE(has_line(s, "launcher=${COLLBENCH_LAUNCHER:-srun}")) << s;
  EXPECT_NE(s.find("--container-image=registry.example/collbench:1 --container-mounts=/fsx/results:/fsx/results "
                   "collbench run --ops 'all_reduce all_to_all' --json \"$result\""),
            std::string::npos)
      << s;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The user's own program with the NCCL Inspector: the Slurm example of the plugin's README.
SlurmJob own_job() {
  SlurmJob j = job();
  j.job_name = "collbench-python";
  j.own_command = true;
  j.args = {"python", "train.py", "--run-name", "it's $HOME; rm -rf /"};
  j.inspector.dir = "/fsx/inspector logs";
  j.inspector.plugin = "/opt/nccl/lib/libnccl-profiler-inspector.so";
  return j;
}

TEST(SbatchInspector, EachVariableOnceTheJobsOwnFolderAndTheCommandAsWritten) {
  const std::string s = render_sbatch(own_job());
  for (const char* line : {"export NCCL_PROFILER_PLUGIN=/opt/nccl/lib/libnccl-profiler-inspector.so",
                           "export NCCL_INSPECTOR_ENABLE=1",
                           "export NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=100000",
                           "inspector_dir='/fsx/inspector logs'/\"$SLURM_JOB_ID\"",
                           "export NCCL_INSPECTOR_DUMP_DIR=\"$inspector_dir\""})
    EXPECT_TRUE(has_line(s, line)) << line << "\n" << s;
  for (const char* name : {"NCCL_PROFILER_PLUGIN=", "NCCL_INSPECTOR_ENABLE=", "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_"
                           "MICROSECONDS=", "NCCL_INSPECTOR_DUMP_DIR="})
    EXPECT_EQ(count(s, name), 1u) << name << "\n" << s;
  // The folder is made before the ranks start, and the job stops if it cannot be.
  const std::size_t mkdir = s.find("\nmkdir -p \"$inspector_dir\" || {");
  ASSERT_NE(mkdir, std::string::npos) << s;
  EXPECT_LT(mkdir, s.find("\ncase \"$launcher\" in"));
  // The program runs as written, each word one shell word, with no results option of collbench's.
  const std::string command = "python train.py --run-name 'it'\\''s $HOME; rm -rf /'";
  EXPECT_TRUE(has_line(s, "  srun) srun --mpi=pmix --cpu-bind=none " + command + " ;;")) << s;
  EXPECT_NE(s.find(" -x NCCL_INSPECTOR_ENABLE -x NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS -x "
                   "NCCL_INSPECTOR_DUMP_DIR " + command + " ;;"),
            std::string::npos)
      << "mpirun forwards the Inspector's variables\n" << s;
  EXPECT_EQ(s.find("--json"), std::string::npos) << s;
  EXPECT_EQ(s.find("result="), std::string::npos) << s;
  EXPECT_TRUE(has_line(s, "  printf 'collbench: NCCL Inspector logs in %s; judge them with: %s analyze %s\\n' "
                          "\"$inspector_dir\" collbench \"$inspector_dir\""))
      << s;
  EXPECT_EQ(s.substr(s.size() - 11), "exit \"$rc\"\n");
  // Every export still says where it comes from.
  for (std::size_t at = s.find("\nexport "); at != std::string::npos; at = s.find("\nexport ", at + 1)) {
    const std::size_t prev = s.rfind('\n', at - 1);
    EXPECT_EQ(s.compare(prev + 1, 12, "#   source: "), 0) << s.substr(prev, at - prev);
  }
}

TEST(SbatchInspector, AnalyzeRunsAfterTheStepAndTheContainerMountsTheFolder) {
  SlurmJob j = own_job();
  j.inspector.analyze = true;
  j.inspector.interval_us = 5000000;
  j.collbench = "/opt/collbench/bin/collbench";
  j.container = "registry.example/train:1";
  const std::string s = render_sbatch(j);
  EXPECT_TRUE(has_line(s, "export NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=5000000")) << s;
  EXPECT_TRUE(has_line(s, "  /opt/collbench/bin/collbench analyze \"$inspector_dir\" --json "
                          "\"$out_dir/collbench-analyze-$SLURM_JOB_ID.json\""))
      << s;
  // The job's exit code is the step's, not analyze's.
  EXPECT_LT(s.find("\nrc=$?\n"), s.find(" analyze \"$inspector_dir\""));
  EXPECT_EQ(count(s, "rc=$?"), 1u) << s;
  EXPECT_NE(s.find("--container-mounts='/fsx/results:/fsx/results,/fsx/inspector logs:/fsx/inspector logs' "), std::string::npos)
      << s;
}

// Without --inspector, nothing of the Inspector's: not for collbench, not for the user's program.
TEST(SbatchInspector, NoInspectorNoInspectorVariable) {
  SlurmJob own = own_job();
  own.inspector = {};
  for (const SlurmJob& j : {job(), own}) {
    const std::string s = render_sbatch(j);
    EXPECT_EQ(s.find("NCCL_INSPECTOR"), std::string::npos) << s;
    EXPECT_EQ(s.find("NCCL_PROFILER_PLUGIN"), std::string::npos) << s;
    EXPECT_EQ(s.find("inspector_dir"), std::string::npos) << s;
  }
  EXPECT_TRUE(has_line(render_sbatch(own), "echo \"collbench: exit code $rc\"")) << render_sbatch(own);
}

K8sJob own_k8s_job() {
  K8sJob j;
  j.name = "collbench-python";
  j.nodes = 2;
  j.gpus_per_node = 8;
  j.image = "registry.example/train:1";
  j.own_command = true;
  j.args = {"python", "train.py", "--note", "a b"};
  j.inspector.dir = "/inspector";
  j.inspector.plugin = "inspector";
  j.inspector_claim = "fsx-claim";
  return j;
}

TEST(MpiJobInspector, TheVariablesOnEveryPodTheFolderPerRunAndTheClaimMounted) {
  const auto d = render_mpijob(own_k8s_job());
  const auto& launcher = d["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0];
  const auto& worker_spec = d["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"];
  for (const auto* container : {&launcher, &worker_spec["containers"][0]}) {
    std::vector<std::string> names;
    for (const auto& e : (*container)["env"]) names.push_back(e["name"]);
    for (const char* name : {"NCCL_PROFILER_PLUGIN", "NCCL_INSPECTOR_ENABLE",
                             "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS"})
      EXPECT_EQ(std::count(names.begin(), names.end(), name), 1) << name;
  }
  const std::string script = launcher["command"][2];
  EXPECT_EQ(script.rfind("export NCCL_INSPECTOR_DUMP_DIR=/inspector/collbench-python-$(date -u +%Y%m%d-%H%M%S); "
                         "mpirun --allow-run-as-root -np 1 mkdir -p \"$NCCL_INSPECTOR_DUMP_DIR\" || {",
                         0),
            0u)
      << script;
  EXPECT_NE(script.find(" -x NCCL_INSPECTOR_DUMP_DIR python train.py --note 'a b'; rc=$?;"), std::string::npos)
      << script;
  EXPECT_EQ(script.find("--json"), std::string::npos) << script;
  EXPECT_NE(script.find("collbench analyze $NCCL_INSPECTOR_DUMP_DIR"), std::string::npos) << script;
  EXPECT_EQ(worker_spec["volumes"][1]["persistentVolumeClaim"]["claimName"], "fsx-claim");
  EXPECT_EQ(worker_spec["containers"][0]["volumeMounts"][1]["mountPath"], "/inspector");
}

TEST(MpiJobInspector, NoInspectorNoInspectorVariable) {
  K8sJob j = own_k8s_job();
  j.inspector = {};
  j.inspector_claim.clear();
  const std::string text = to_yaml(render_mpijob(j));
  EXPECT_EQ(text.find("NCCL_INSPECTOR"), std::string::npos) << text;
  EXPECT_EQ(text.find("NCCL_PROFILER_PLUGIN"), std::string::npos) << text;
  EXPECT_EQ(text.find("persistentVolumeClaim"), std::string::npos) << text;
}

TEST(Prolog, TheNodeAloneChecksAndTheDrainLineRunsOnlyWhenAsked) {
  PrologJob j;
  j.ranks = 8;
  j.collbench = "/opt/collbench/bin/collbench";
  j.extra_args = {"--thresholds", "/etc/collbench thresholds"};
  j.env = {{"FI_PROVIDER", "efa", "why", "a source"}};
  j.written_by = "a test";
  const std::string s = render_prolog(j);
  EXPECT_EQ(s.rfind("#!/bin/bash\n", 0), 0u);
  for (const char* line : {"drain=${COLLBENCH_DRAIN:-0}", "#   source: a source", "export FI_PROVIDER=efa",
                           "  mpirun --allow-run-as-root -np 8 --host localhost:8 --bind-to none \\",
                           "  /opt/collbench/bin/collbench preflight --skip world,pairs,fabric --budget 2m --no-progress "
                           "--color never --thresholds '/etc/collbench thresholds' >\"$log\" 2>&1",
                           "exit 0"})
    EXPECT_TRUE(has_line(s, line)) << line << "\n" << s;
  // scontrol runs only under the drain switch, which is off unless written with --drain.
  const std::size_t run = s.find("\n      scontrol update");
  ASSERT_NE(run, std::string::npos) << s;
  EXPECT_NE(s.rfind("if [ \"$drain\" = 1 ]; then", run), std::string::npos);
  j.drain = true;
  EXPECT_TRUE(has_line(render_prolog(j), "drain=${COLLBENCH_DRAIN:-1}"));
  EXPECT_EQ(prolog_check_command("5m", {"--backend", "mpi"}).back(), "mpi");
}

TEST(JobEnv, ExportsSayWhyAndWhereEachValueComesFrom) {
  EXPECT_EQ(shell_exports({{"A", "x y", "because", "here"}, {"B", "1", "too", "there"}}),
            "# because\n#   source: here\nexport A='x y'\n# too\n#   source: there\nexport B=1\n");
}

TEST(JobEnv, EfaOnlyWhereTheProfileHasItAndDeviceRdmaOnGpuDirectTypes) {
  EXPECT_TRUE(efa_environment("x", std::nullopt).empty());
  EXPECT_TRUE(efa_environment("g4dn.xlarge", report::HardwareProfile{1, "T4", 0, 0, ""}).empty());
  const auto g5 = efa_environment("g5.48xlarge", report::HardwareProfile{8, "A10G", 1, 100, ""});
  EXPECT_EQ(g5.front().name, "FI_PROVIDER");
  EXPECT_TRUE(std::none_of(g5.begin(), g5.end(), [](const EnvSetting& e) { return e.name == "FI_EFA_USE_DEVICE_RDMA"; }));
  for (const auto& e : efa_environment("p4d.24xlarge", report::HardwareProfile{8, "A100", 4, 400, ""})) {
    EXPECT_FALSE(e.why.empty()) << e.name;
    EXPECT_EQ(e.source.rfind("https://", 0), 0u) << e.name;
  }
  // NCCL_DEBUG is collbench's own business (its audit warns when it is set).
  for (const auto& e : open_mpi_environment()) EXPECT_EQ(e.name.rfind("NCCL_DEBUG", 0), std::string::npos);
}

TEST(MpiJob, WorkersCarryTheProfileAndTheLauncherPrintsTheResults) {
  K8sJob j;
  j.name = "collbench-preflight";
  j.kube_namespace = "hpc";
  j.nodes = 3;
  j.gpus_per_node = 8;
  j.efa_per_node = 32;
  j.instance_type = "p5.48xlarge";
  j.image = "registry.example/collbench:1";
  j.args = {"preflight"};
  const auto d = render_mpijob(j);
  EXPECT_EQ(d["apiVersion"], "kubeflow.org/v2beta1");
  EXPECT_EQ(d["spec"]["slotsPerWorker"], 8);
  const auto& worker = d["spec"]["mpiReplicaSpecs"]["Worker"];
  EXPECT_EQ(worker["replicas"], 3);
  const auto& limits = worker["template"]["spec"]["containers"][0]["resources"]["limits"];
  EXPECT_EQ(limits["nvidia.com/gpu"], "8");
  EXPECT_EQ(limits["vpc.amazonaws.com/efa"], "32");
  EXPECT_EQ(limits["hugepages-2Mi"], "5120Mi");
  EXPECT_EQ(worker["template"]["spec"]["nodeSelector"]["node.kubernetes.io/instance-type"], "p5.48xlarge");
  const std::string script = d["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]["containers"][0]["command"][2];
  EXPECT_NE(script.find("mpirun --allow-run-as-root -np 24 --map-by ppr:8:node"), std::string::npos) << script;
  EXPECT_NE(script.find("mpirun --allow-run-as-root -np 1 cat /tmp/collbench-results.json"), std::string::npos)
      << script;
  EXPECT_NE(script.find("exit $rc"), std::string::npos) << script;
  // No EFA on the type: no EFA request and no hugepages.
  j.efa_per_node = 0;
  const auto plain = render_mpijob(j)["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
  EXPECT_FALSE(plain["resources"]["limits"].contains("vpc.amazonaws.com/efa"));
  EXPECT_FALSE(plain["resources"]["limits"].contains("hugepages-2Mi"));
}

}  // namespace
}  // namespace collbench::launch
