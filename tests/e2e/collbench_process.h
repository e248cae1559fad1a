// Shared by the end-to-end tests: runs the real collbench binary (under mpirun when asked) in a
// scratch folder of its own per test, and captures its exit code, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace collbench::e2e {

namespace fs = std::filesystem;

// `env` words that let Open MPI run here: as root (containers, CI), oversubscribed, without the
// cross-memory attach containers forbid, and on ob1 (shared memory, TCP). The MTLs are for fabrics
// absent here, and the libraries they load (libpsm2, libinfinipath, libfabric's) sleep about 0.1 s
// each in their constructors, in every rank of every mpirun.
inline constexpr const char* kOpenMpiHere =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none "
    "OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 ";

struct Result {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The count on the summary's "Issues Found:" line; -1 when there is none.
inline int issues_found(const std::string& out) {
  const std::string key = "Issues Found:";
  const std::size_t at = out.find(key);
  return at == std::string::npos ? -1 : std::atoi(out.c_str() + at + key.size());
}

inline std::string describe(const Result& r) {
  return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out + "\nstderr:\n" + r.err;
}

class CollbenchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("collbench-e2e-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);  // kept for a look when something failed
  }

  // `collbench ARGS`, under mpirun with `np` ranks when np > 0.
  Result collbench(const std::string& args, int np = 0) {
    const std::string launch = np > 0 ? std::string(COLLBENCH_MPIEXEC) + " -np " + std::to_string(np) + " " : "";
    return shell(launch + COLLBENCH_BIN + " " + args);
  }

  // A shell command line with Open MPI allowed to run here (kOpenMpiHere).
  Result shell(const std::string& command) {
    const std::string env = std::string("env ") + kOpenMpiHere;
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const int status =
        std::system((env + command + " >" + out.string() + " 2>" + err.string() + " </dev/null").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
  }

  fs::path dir_;
};

}  // namespace collbench::e2e
