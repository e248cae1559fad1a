// End to end: `collbench launch` writes files bash and the validators accept, and refuses bad input
// with exit 2 before writing anything.
#include "collbench_process.h"
#include "inspector/simulated_job.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::Result;
using collbench::e2e::slurp;

using Launch = collbench::e2e::CollbenchTest;

}  // namespace

TEST_F(Launch, SlurmScriptIsValidBashExecutableAndNamesTheInstance) {
  const fs::path out = dir_ / "job.sbatch";
  const Result r = collbench("launch slurm --nodes 4 --instance-type P5.48XLARGE --partition gpu --output-dir " +
                             dir_.string() + " -o " + out.string() + " -- preflight --budget 10m");
  ASSERT_EQ(r.code, 0) << describe(r);
  const std::string text = slurp(out);
  EXPECT_NE(text.find("#SBATCH --ntasks-per-node=8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# collbench on 4 node(s) of p5.48xlarge: preflight --budget 10m\n"), std::string::npos) << text;
  EXPECT_NE(text.find("--output=" + dir_.string() + "/%x-%j.out"), std::string::npos) << text;
  struct stat st {};
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_TRUE(st.st_mode & S_IXUSR) << "the script is executable";
  EXPECT_EQ(std::system(("bash -n " + out.string()).c_str()), 0) << text;
}

// -o is run's and hunt's reduction, not a results file: the job keeps it.
TEST_F(Launch, TheWrappedRunKeepsItsReduction) {
  const Result r = collbench("launch slurm --nodes 2 --tasks-per-node 2 -- run -o max --ops all_reduce");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("run -o max --ops all_reduce"), std::string::npos) << r.out;
}

TEST_F(Launch, K8sDocumentGoesToStandardOutputWithoutAFile) {
  const Result r = collbench(
      "launch k8s --nodes 2 --instance-type p4d.24xlarge --image reg/cb:1 --env NCCL_DEBUG=INFO -- run -e 1G");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("- name: \"NCCL_DEBUG\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" -x NCCL_DEBUG "), std::string::npos) << "mpirun forwards it to the workers\n" << r.out;
  EXPECT_NE(r.out.find("kind: \"MPIJob\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vpc.amazonaws.com/efa: \"4\"\n"), std::string::npos) << r.out;
}

// Without a claim the MPIJob cannot mount the Inspector's folder itself: its header says so.
TEST_F(Launch, K8sInspectorWithoutAClaimSaysTheFolderMustBeAVolume) {
  const Result r = collbench("launch k8s --nodes 2 --gpus-per-node 8 --image reg/train:1 --inspector /inspector "
                             "--inspector-plugin inspector --command -- python train.py");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("# NCCL Inspector logs: /inspector/collbench-python-<start time>/. Every worker must mount a "
                       "volume they share at /inspector\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("persistentVolumeClaim"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- name: \"NCCL_INSPECTOR_ENABLE\"\n"), std::string::npos) << r.out;
}

TEST_F(Launch, BadInputIsRefusedByNameAndNothingIsWritten) {
  const fs::path out = dir_ / "never";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases{
      {"slurm --nodes 2 --tasks-per-node 2 -- analyze x.txt", "launch runs one that measures"},
      {"slurm --nodes 2 --tasks-per-node 2 -- run --json r.json", "leave --json out"},
      {"slurm --nodes 2 --tasks-per-node 2 -- fabric -o f.json", "leave -o out"},
      {"slurm --nodes 2 --tasks-per-node 2 -- run --ops nosuch", "the command after --: "},
      {"slurm --nodes 2 -- run", "give --instance-type"},
      {"slurm --nodes 0 --tasks-per-node 2 -- run", "--nodes 0"},
      {"slurm --nodes 2 --instance-type p5.48xlarg -- run", "p5.48xlarge"},
      {"slurm --nodes 2 --tasks-per-node 2 --output-dir /no/such/dir -- run", "--output-dir /no/such/dir: no such"},
      {"slurm --nodes 2 --tasks-per-node 2 --launcher pbs -- run", "--launcher 'pbs'"},
      {"slurm --nodes 2 --tasks-per-node 2 --container img --launcher mpirun -- run", "Pyxis"},
      {"slurm --nodes 2 --tasks-per-node 2 --time 'now; rm' -- run", "--time"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --name My_Job -- run", "not a valid MPIJob name"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --namespace Bad.NS -- run", "--namespace bad-ns"},
      {"k8s --nodes 2 --gpus-per-node 8 -- run", "--image"},
      {"prolog -- --backend mpi", "give --instance-type"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --env NODEBUG -- run", "--env 'NODEBUG': give NAME=VALUE"},
      {"slurm --nodes 2 --tasks-per-node 2 --env 'A B=1' -- run", "--env 'A B=1'"},
      {"prolog --tasks-per-node 2 -- --nosuch", "the command after --: "},
      {"prolog --tasks-per-node 2 --budget soon", "the command after --: "},
      {"prolog --tasks-per-node 2 --log-dir logs", "--log-dir 'logs'"},
      {"slurm --nodes 2 --tasks-per-node 2 -- python train.py", "add --command"},
      {"slurm --nodes 2 --tasks-per-node 2 --command -- run --ops all_reduce", "'run' is a collbench command"},
      {"slurm --nodes 2 --tasks-per-node 2 --command -- /opt/collbench run", "drop --command and the word 'collbench'"},
      {"slurm --nodes 2 --tasks-per-node 2 --collbench /opt/cb --command -- python t.py", "--collbench names"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector inspector --inspector-plugin /p.so -- run", "--inspector "
                                                                                                 "'inspector': give an absolute"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector '' --inspector-plugin /p.so -- run", "--inspector '': give"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector /fsx/i --command -- python t.py", "--inspector needs "
                                                                                         "--inspector-plugin"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector /fsx/i --inspector-plugin lib/p.so -- run",
       "--inspector-plugin 'lib/p.so'"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector-plugin /p.so --command -- python t.py",
       "--inspector-plugin needs --inspector DIR"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector-analyze -- run", "--inspector-analyze needs --inspector DIR"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector /fsx/i --inspector-plugin /p.so --inspector-interval-us -1 -- run",
       "--inspector-interval-us -1"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector /fsx/i --inspector-plugin /p.so --env NCCL_INSPECTOR_PROM_DUMP=1 "
       "-- run",
       "--env 'NCCL_INSPECTOR_PROM_DUMP=1' with --inspector"},
      {"slurm --nodes 2 --tasks-per-node 2 --inspector /fsx/i --inspector-plugin /p.so --env "
       "NCCL_INSPECTOR_DUMP_DIR=/x -- run",
       "--env 'NCCL_INSPECTOR_DUMP_DIR=/x' with --inspector"},
      {"slurm --nodes 2 --tasks-per-node 2 --container img --inspector /fsx/a,b --inspector-plugin /p.so -- run",
       "--container mounts it with Pyxis"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --inspector-volume-claim c --command -- python t.py",
       "--inspector-volume-claim needs --inspector DIR"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --inspector /a:b --inspector-plugin inspector --command -- python",
       "a Kubernetes mountPath"},
      {"k8s --nodes 2 --gpus-per-node 8 --image i --inspector /i --inspector-plugin inspector --inspector-volume-claim "
       "Fsx_Claim --command -- python",
       "--inspector-volume-claim 'Fsx_Claim'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const std::size_t target = c.args.find(' ');  // -o before --, after slurm, k8s or prolog
    const Result r = collbench("launch " + c.args.substr(0, target) + " -o " + out.string() + c.args.substr(target));
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

// The user's own program under the written script, with a stand-in srun (it drops its options and
// runs the program once) or this machine's mpirun: the program leaves its environment and
// arguments beside itself, writes into the Inspector's folder as the plugin would, and exits 7.
class OwnJob : public Launch {
 protected:
  Result write_and_run(const std::string& write_flags, const std::string& launcher) {
    const fs::path bin = dir_ / "bin";
    fs::create_directories(bin);
    std::ofstream(bin / "srun") << "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -*) shift ;; *) break ;; esac; "
                                   "done\nexec \"$@\"\n";
    fs::permissions(bin / "srun", fs::perms::owner_all);
    fs::create_symlink(COLLBENCH_MPIEXEC, bin / "mpirun");
    const fs::path train = dir_ / "train.sh";
    std::ofstream(train) << "#!/bin/sh\nenv >\"$(dirname \"$0\")/env.txt\"\nprintf '%s\\n' \"$@\" >\"$(dirname "
                            "\"$0\")/args.txt\"\nif [ -d \"$(dirname \"$0\")/sim\" ]; then cp \"$(dirname \"$0\")\"/sim/* "
                            "\"$NCCL_INSPECTOR_DUMP_DIR\"/; else echo '{}' >\"$NCCL_INSPECTOR_DUMP_DIR/$(hostname)-"
                            "pid$$.log\"; fi\nexit 7\n";
    fs::permissions(train, fs::perms::owner_all);
    const fs::path script = dir_ / "train.sbatch";
    const Result w = collbench("launch slurm --nodes 1 --tasks-per-node 1 --output-dir " + dir_.string() +
                               " --inspector " + (dir_ / "inspector").string() +
                               " --inspector-plugin /opt/nccl/libnccl-profiler-inspector.so" + write_flags + " -o " +
                               script.string() + " --command -- " + train.string() +
                               " \"it's \\$HOME; a word\" --lr 0.1");
    EXPECT_EQ(w.code, 0) << describe(w);
    EXPECT_EQ(shell("bash -n " + script.string()).code, 0) << slurp(script);
    return shell("env PATH=" + bin.string() + ":$PATH SLURM_JOB_ID=4242 SLURM_NTASKS=1 SLURM_JOB_NUM_NODES=1 "
                 "COLLBENCH_LAUNCHER=" + launcher + " " + script.string());
  }
  void expect_ran_with_the_inspector() {
    const std::string env = "\n" + slurp(dir_ / "env.txt");
    for (const std::string& line : std::vector<std::string>{
             "NCCL_PROFILER_PLUGIN=/opt/nccl/libnccl-profiler-inspector.so", "NCCL_INSPECTOR_ENABLE=1",
          "NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=100000",
          "NCCL_INSPECTOR_DUMP_DIR=" + (dir_ / "inspector" / "4242").string()})
      EXPECT_NE(env.find("\n" + line + "\n"), std::string::npos) << line << env;
    EXPECT_EQ(slurp(dir_ / "args.txt"), "it's $HOME; a word\n--lr\n0.1\n");
  }
};

TEST_F(OwnJob, UnderSrunTheProgramRunsWithTheInspectorAndItsExitCodeIsTheJobs) {
  const Result r = write_and_run("", "srun");
  EXPECT_EQ(r.code, 7) << describe(r);
  expect_ran_with_the_inspector();
  const std::string folder = (dir_ / "inspector" / "4242").string();
  EXPECT_NE(r.out.find("collbench: NCCL Inspector logs in " + folder + "; judge them with: collbench analyze " +
                       folder + "\n"),
            std::string::npos)
      << describe(r);
}

// mpirun forwards the variables (-x); analyze judges the logs after the step, and the job's exit
// code stays the program's.
TEST_F(OwnJob, UnderMpirunWithAnalyzeTheLogsAreJudgedAndTheExitCodeStaysTheStepS) {
  collbench::inspector_sim::JobSpec spec;  // a healthy job of 8 ranks on 2 hosts
  collbench::inspector_sim::write_job(spec, (dir_ / "sim").string());
  const Result r = write_and_run(std::string(" --inspector-analyze --collbench ") + COLLBENCH_BIN, "mpirun");
  EXPECT_EQ(r.code, 7) << describe(r);
  expect_ran_with_the_inspector();
  EXPECT_NE(r.out.find("with mpirun"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("[PASS] INSPECTOR_HEALTHY"), std::string::npos) << describe(r);
  EXPECT_NE(r.out.find("collbench: analyze exit code 0; the job's exit code stays the step's (7)"), std::string::npos)
      << describe(r);
  EXPECT_TRUE(fs::exists(dir_ / "collbench-analyze-4242.json"));
}

namespace {

// A node-scope threshold for a made-up instance type: `fail_below` GB/s at 1 MiB, where the checks here end (-e 1M).
void write_thresholds(const fs::path& file, double fail_below) {
  std::ofstream(file) << R"({"schema": "collbench.thresholds/1", "instance_type": "test.node",
  "hardware": {"gpus": 2, "gpu": "none", "efa_devices": 0, "efa_gbps": 0, "source": "a test profile"},
  "thresholds": [{"op": "all_reduce", "scope": "node", "bytes": 1048576, "fail_below": )"
                      << fail_below << R"(, "warn_below": )" << 2 * fail_below
                      << R"(, "basis": "derived", "source": "a test row"}]})";
}

}  // namespace

// The prolog runs the node check with mpirun on this machine; `scontrol` is a stand-in that leaves
// a mark, so the test sees whether the script ran it.
class Prolog : public Launch {
 protected:
  Result write_and_run(double fail_below, const std::string& run_env, const std::string& write_flags = "") {
    const fs::path bin = dir_ / "bin";
    fs::create_directories(bin);
    std::ofstream(bin / "scontrol") << "#!/bin/sh\necho \"$@\" >" << (dir_ / "scontrol-ran").string() << "\n";
    fs::permissions(bin / "scontrol", fs::perms::owner_all);
    write_thresholds(dir_ / "t.json", fail_below);
    const fs::path script = dir_ / "prolog.sh";
    const Result w = collbench("launch prolog --tasks-per-node 2 --mpirun " + mpirun_ +
                               " --collbench " + COLLBENCH_BIN + " --log-dir " + dir_.string() + write_flags +
                               " -o " + script.string() + " -- --backend mpi -e 1M --instance-type test.node --thresholds " +
                               (dir_ / "t.json").string());
    EXPECT_EQ(w.code, 0) << describe(w);
    EXPECT_EQ(shell("bash -n " + script.string()).code, 0) << slurp(script);
    return shell("env PATH=" + bin.string() + ":$PATH SLURMD_NODENAME=node7 " + run_env + " " + script.string());
  }
  std::string mpirun_ = COLLBENCH_MPIEXEC;
};

TEST_F(Prolog, ASlowNodePrintsTheDrainLineAndDoesNotRunIt) {
  const Result r = write_and_run(1e6, "");  // no host reaches 1e6 GB/s
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("collbench: node7 failed its node check (BUSBW_BELOW_THRESHOLD)"), std::string::npos)
      << describe(r);
  EXPECT_NE(r.out.find("next step: scontrol update nodename=node7 state=drain reason=\"collbench node check: "
                       "BUSBW_BELOW_THRESHOLD\""),
            std::string::npos)
      << describe(r);
  EXPECT_FALSE(fs::exists(dir_ / "scontrol-ran")) << "written without --drain, the line is printed only";
  // Slurm keeps no Prolog output: the log has the check's findings and the script's own lines.
  const std::string log = slurp(dir_ / "collbench-node-check-node7.log");
  EXPECT_NE(log.find("[FAIL] BUSBW_BELOW_THRESHOLD"), std::string::npos) << log;
  EXPECT_NE(log.find("collbench: next step: scontrol update nodename=node7"), std::string::npos) << log;
}

TEST_F(Prolog, WrittenWithDrainItDrainsTheSlowNode) {
  const Result r = write_and_run(1e6, "", " --drain");
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(slurp(dir_ / "scontrol-ran"),
            "update nodename=node7 state=drain reason=collbench node check: BUSBW_BELOW_THRESHOLD\n")
      << describe(r);
  EXPECT_NE(r.out.find("collbench: drained node7"), std::string::npos) << describe(r);
}

TEST_F(Prolog, AHealthyNodePassesWithoutADrainLine) {
  const Result r = write_and_run(1e-6, "COLLBENCH_DRAIN=1");  // any host passes; draining allowed, not needed
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("collbench: node7 passed its node check"), std::string::npos) << describe(r);
  EXPECT_EQ(r.out.find("drain"), std::string::npos) << describe(r);
  EXPECT_FALSE(fs::exists(dir_ / "scontrol-ran"));
}

TEST_F(Prolog, ACheckThatCannotRunDrainsNothing) {
  mpirun_ = (dir_ / "no-such-mpirun").string();
  const Result r = write_and_run(1e6, "COLLBENCH_DRAIN=1");
  EXPECT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("collbench: node7: the check could not run (exit 127), nothing judged"), std::string::npos)
      << describe(r);
  EXPECT_FALSE(fs::exists(dir_ / "scontrol-ran"));
}
