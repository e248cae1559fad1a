// End to end: an output file that cannot be written is refused when the command line is read, with
// exit 2 and the option named, before any rank measures anything and with nothing written.
#include "collbench_process.h"

namespace {

namespace fs = std::filesystem;

using collbench::e2e::describe;
using collbench::e2e::Result;

using Outputs = collbench::e2e::CollbenchTest;

TEST_F(Outputs, AFolderAMissingFolderOrAnEmptyNameIsRefusedBeforeMeasuring) {
  struct Case {
    std::string args;
    int ranks;
    std::string says;
  };
  const std::string folder = dir_.string();
  const std::vector<Case> cases{
      {"run --backend mpi -e 64K --json " + folder, 2, "--json " + folder + " is a folder; give a file name in it"},
      {"run --backend mpi -e 64K --json ''", 2, "--json '': give a file name"},
      {"run --backend mpi -e 64K --html " + folder, 2, "--html " + folder + " is a folder"},
      {"hunt --backend mpi --json /no/such/dir/h.json", 2,
       "--json /no/such/dir/h.json: the folder /no/such/dir does not exist"},
      {"fabric --provider tcp -o " + folder, 2, folder + " is a folder; give a file name in it"},
      {"preflight --backend mpi --json /no/such/dir/p.json", 2,
       "--json /no/such/dir/p.json: the folder /no/such/dir does not exist"},
      {"analyze --json " + folder + " " + std::string(COLLBENCH_FIXTURES) + "/nccl-tests/all_reduce_2x_p5.48xlarge.txt",
       0, "--json " + folder + " is a folder"},
      {"launch slurm --nodes 2 --tasks-per-node 2 -o /no/such/dir/j.sbatch -- run", 0, "--output /no/such/dir/j.sbatch"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const Result r = collbench(c.args, c.ranks);
    EXPECT_EQ(r.code, 2) << describe(r);
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.out.find("busbw"), std::string::npos) << "nothing measured:\n" << r.out;
  }
  // Nothing was written beside or inside the folder.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2u) << "only the captured stdout and stderr";
}

}  // namespace

namespace {

// fabric's buffers at a size no host here holds (2 TiB a rank; the tcp provider's max_msg_size is
// 2^64-1, so no provider limit stops it) are refused by name before anything is measured or
// written, not met with bad_alloc. run's host buffers: test_mpirun.cpp's -e 15G case.
TEST_F(Outputs, FabricBuffersThatCannotFitAreRefusedBeforeMeasuring) {
  const Result r = collbench("fabric --provider tcp -e 1T -o " + (dir_ / "f.json").string(), 2);
  EXPECT_EQ(r.code, 2) << describe(r);
  EXPECT_NE(r.err.find("-e too large: 1 rank(s) on this node need 2 TiB of send and receive buffers"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "f.json"));
}

}  // namespace
