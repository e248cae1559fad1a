// The fixture the Inspector rules' tests share: a simulated job written into a temporary directory
// and read back, and the findings that are problems (FAIL or WARN).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "reports/inspector/inspector_job.h"
#include "reports/inspector/inspector_rules.h"
#include "tests/inspector/simulated_job.h"

namespace collbench::report::inspector {

namespace sim = collbench::inspector_sim;

class InspectorJob : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("collbench-inspector-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  Job run(const sim::JobSpec& spec, const std::string& name = "job") {
    sim::write_job(spec, (dir_ / name).string());
    return read_job({(dir_ / name).string()});
  }
  static std::vector<Finding> problems(const std::vector<Finding>& fs) {
    std::vector<Finding> out;
    for (const auto& f : fs)
      if (f.tag == Tag::Fail || f.tag == Tag::Warn) out.push_back(f);
    return out;
  }
  static std::string codes(const std::vector<Finding>& fs) {
    std::string s;
    for (const auto& f : fs) s += f.code + ": " + f.message + "\n";
    return s;
  }
  std::filesystem::path dir_;
};

inline sim::JobSpec spec(int hosts, int gpus, sim::Fault fault = sim::Fault::None, std::uint64_t seed = 1) {
  sim::JobSpec s;
  s.hosts = hosts, s.gpus = gpus, s.fault = fault, s.seed = seed;
  return s;
}


}  // namespace collbench::report::inspector
