// End to end: `collbench launch` writes files bash and the validators accept, and refuses bad input
// with exit 2 before writing anything.
#include "collbench_process.h"

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

TEST_F(Launch, K8sDocumentGoesToStandardOutputWithoutAFile) {
  const Result r = collbench("launch k8s --nodes 2 --instance-type p4d.24xlarge --image reg/cb:1 -- run -e 1G");
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("kind: \"MPIJob\"\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("vpc.amazonaws.com/efa: \"4\"\n"), std::string::npos) << r.out;
}

TEST_F(Launch, BadInputIsRefusedByNameAndNothingIsWritten) {
  const fs::path out = dir_ / "never";
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases{
      {"slurm --nodes 2 --tasks-per-node 2 -- analyze x.txt", "launch runs one that measures"},
      {"slurm --nodes 2 --tasks-per-node 2 -- run --json r.json", "leave --json out"},
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
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const std::size_t target = c.args.find(' ');  // -o before --, after slurm or k8s
    const Result r = collbench("launch " + c.args.substr(0, target) + " -o " + out.string() + c.args.substr(target));
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}
