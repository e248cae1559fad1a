// End to end: SIGTERM and SIGINT end run, fabric and preflight within 5 s, alone and under mpirun,
// in the middle of a case too; the signal is named, the exit code is non-zero, and the document
// holds what was measured before it with "complete": false. hunt needs two nodes: its stop is in
// tests/fakecluster/faults.sh.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "collbench_process.h"

namespace {

namespace fs = std::filesystem;
using collbench::e2e::kOpenMpiHere;
using collbench::e2e::slurp;
using Clock = std::chrono::steady_clock;

struct Ended {
  int code = -1;  // as a shell reports it: 128 + the signal for a process a signal ended
  double after_signal_s = 0;
  std::string out, err;
};

std::size_t count_lines(const fs::path& p) {
  const std::string text = slurp(p);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class Signals : public collbench::e2e::CollbenchTest {
 protected:
  // Starts `command` (exec'd by sh, so the pid is the command's own: collbench alone, or mpirun),
  // waits until `ready` (at most 120 s), sends `signo` and waits for the end (at most 30 s).
  Ended stop_when(const std::string& command, const std::function<bool()>& ready, int signo) {
    const std::string out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    const std::string line = std::string("exec env ") + kOpenMpiHere +
                             // mpirun sends SIGTERM, then SIGKILL this many seconds later (1 by
                             // default): room for rank 0 to write on a loaded machine.
                             "OMPI_MCA_odls_base_sigkill_timeout=2 " +
                             command + " >" + out + " 2>" + err + " </dev/null";
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", line.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    Ended e;
    int status = 0;
    const auto start = Clock::now();
    bool exited = false;
    while (!ready()) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (Clock::now() - start > std::chrono::seconds(120)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (exited) {
      ADD_FAILURE() << "ended before the signal: " << slurp(out) << slurp(err);
    } else {
      kill(pid, signo);
      const auto sent = Clock::now();
      while (waitpid(pid, &status, WNOHANG) != pid) {
        if (Clock::now() - sent > std::chrono::seconds(30)) {
          kill(pid, SIGKILL);
          waitpid(pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      e.after_signal_s = std::chrono::duration<double>(Clock::now() - sent).count();
    }
    e.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    e.out = slurp(out);
    e.err = slurp(err);
    return e;
  }

  static std::string describe(const Ended& e) {
    return "exit " + std::to_string(e.code) + " after " + std::to_string(e.after_signal_s) + " s\nstdout:\n" + e.out +
           "\nstderr:\n" + e.err;
  }
};

// One process, as a user starts it without mpirun (an MPI singleton), stopped after some cases.
TEST_F(Signals, SigtermEndsASingleProcessRunAndKeepsItsCases) {
  const fs::path json = dir_ / "run.json", partial = dir_ / "run.json.partial";
  std::size_t seen = 0;
  const Ended e = stop_when(std::string(COLLBENCH_BIN) + " run --backend mpi -b 1M -e 256M -n 400 --no-progress "
                                                         "--no-color --json " + json.string(),
                            [&] { return (seen = count_lines(partial)) >= 3; }, SIGTERM);
  EXPECT_LT(e.after_signal_s, 5.0) << describe(e);
  EXPECT_EQ(e.code, 128 + SIGTERM) << describe(e);
  EXPECT_NE(e.err.find("collbench: rank 0 (host "), std::string::npos) << e.err;
  EXPECT_NE(e.err.find("): stopped by SIGTERM"), std::string::npos) << e.err;
  EXPECT_NE(e.out.find("[WARN] STOPPED_BY_SIGNAL (P1): stopped by SIGTERM after "), std::string::npos) << e.out;
  EXPECT_NE(e.out.find("Issues Found:"), std::string::npos) << "the summary ends the output:\n" << e.out;
  ASSERT_TRUE(fs::exists(json)) << describe(e);
  EXPECT_FALSE(fs::exists(partial)) << "the journal became the document";
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["schema"], "collbench.run/1");
  EXPECT_EQ(doc["complete"], false);
  EXPECT_NE(doc["error"].get<std::string>().find("stopped by SIGTERM"), std::string::npos);
  EXPECT_EQ(doc["verdict"]["exit_code"], 128 + SIGTERM);
  EXPECT_GE(doc["cases"].size(), seen - 1) << "every case journaled before the signal is in the document";
}

// Stopped inside one long case (each iteration about a tenth of a second, a thousand of them): the
// measuring thread is inside the collective, and the process still ends at once.
TEST_F(Signals, SigtermEndsARunInsideALongCase) {
  const fs::path json = dir_ / "long.json";
  const auto started = Clock::now();
  const Ended e = stop_when(std::string(COLLBENCH_BIN) + " run --backend mpi -b 256M -e 256M -n 1000 -w 1 "
                                                         "--no-progress --no-color --json " + json.string(),
                            [&] {
                              return fs::exists(dir_ / "long.json.partial") &&
                                     Clock::now() - started > std::chrono::seconds(3);
                            },
                            SIGTERM);
  EXPECT_LT(e.after_signal_s, 5.0) << describe(e);
  EXPECT_EQ(e.code, 128 + SIGTERM) << describe(e);
  ASSERT_TRUE(fs::exists(json)) << describe(e);
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["cases"].size(), 0u) << "the case in progress is not a result";
  EXPECT_NE(e.out.find("stopped by SIGTERM before the first case result was measured"), std::string::npos) << e.out;
}

// SIGTERM to mpirun (what scancel and a deleted launcher pod do): mpirun passes it on to every
// rank, and rank 0 writes what it gathered.
TEST_F(Signals, SigtermToMpirunEndsEveryRankAndKeepsTheCases) {
  const fs::path json = dir_ / "mpirun.json", partial = dir_ / "mpirun.json.partial";
  std::size_t seen = 0;
  const Ended e = stop_when(std::string(COLLBENCH_MPIEXEC) + " -np 2 " + COLLBENCH_BIN +
                                " run --backend mpi -b 1M -e 256M -n 400 --no-progress --no-color --json " +
                                json.string(),
                            [&] { return (seen = count_lines(partial)) >= 3; }, SIGTERM);
  EXPECT_LT(e.after_signal_s, 5.0) << describe(e);
  EXPECT_NE(e.code, 0) << describe(e);
  for (int rank : {0, 1})
    EXPECT_NE(e.err.find("collbench: rank " + std::to_string(rank) + " (host "), std::string::npos) << e.err;
  ASSERT_TRUE(fs::exists(json)) << describe(e);
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["complete"], false);
  EXPECT_GE(doc["cases"].size(), seen - 1);
}

// Ctrl-C on fabric: the rounds gathered so far are in -o, with "complete": false.
TEST_F(Signals, SigintEndsFabricAndKeepsItsRounds) {
  const fs::path json = dir_ / "fabric.json";
  const auto started = Clock::now();
  const Ended e = stop_when(std::string(COLLBENCH_MPIEXEC) + " -np 4 " + COLLBENCH_BIN +
                                " fabric --provider tcp --budget 120 --no-color -o " + json.string(),
                            [&] {
                              return slurp(dir_ / "stdout").find("# Provider") != std::string::npos &&
                                     Clock::now() - started > std::chrono::seconds(8);
                            },
                            SIGINT);
  EXPECT_LT(e.after_signal_s, 5.0) << describe(e);
  EXPECT_NE(e.code, 0) << describe(e);
  EXPECT_NE(e.err.find("stopped by SIGTERM"), std::string::npos) << "mpirun ends its ranks with SIGTERM:\n" << e.err;
  ASSERT_TRUE(fs::exists(json)) << describe(e);
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["schema"], "collbench.fabric/1");
  EXPECT_EQ(doc["complete"], false);
  EXPECT_NE(doc["error"].get<std::string>().find("stopped by SIGTERM"), std::string::npos);
}

// preflight: the phase the signal stopped is marked so and holds the document of what it measured.
// The signal comes as soon as the node phase starts: its sweep to 256M lasts seconds even on a fast
// machine (about 8 s where one to 64M took 2), while a signal sent later could reach a run that had
// already judged everything.
TEST_F(Signals, SigtermEndsPreflightWithThePhaseItStopped) {
  const fs::path json = dir_ / "preflight.json";
  const Ended e = stop_when(std::string(COLLBENCH_MPIEXEC) + " -np 2 " + COLLBENCH_BIN +
                                " preflight --backend mpi --provider tcp --budget 2m -e 256M --timeout 120 --no-color --json " +
                                json.string(),
                            [&] { return slurp(dir_ / "stdout").find("phase 2 of") != std::string::npos; }, SIGTERM);
  EXPECT_LT(e.after_signal_s, 5.0) << describe(e);
  EXPECT_NE(e.code, 0) << describe(e);
  EXPECT_NE(e.out.find("[WARN] STOPPED_BY_SIGNAL (P1): stopped by SIGTERM"), std::string::npos) << e.out;
  ASSERT_TRUE(fs::exists(json)) << describe(e);
  const auto doc = nlohmann::json::parse(slurp(json));
  EXPECT_EQ(doc["schema"], "collbench.preflight/1");
  EXPECT_EQ(doc["complete"], false);
  EXPECT_EQ(doc["verdict"]["go"], false);
  const auto& phase = doc["phases"].back();
  EXPECT_EQ(phase["name"], "node");
  EXPECT_EQ(phase["status"], "stopped");
  ASSERT_TRUE(phase["document"].is_object()) << phase.dump(2);
  EXPECT_EQ(phase["document"]["schema"], "collbench.run/1");
  EXPECT_EQ(phase["document"]["complete"], false);
}

}  // namespace
