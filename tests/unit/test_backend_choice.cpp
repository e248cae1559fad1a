// --backend auto from what every process found, and whether a sweep's buffers fit on a GPU or in
// host memory.
#include <gtest/gtest.h>

#include "bench/errors.h"
#include "bench/gpu_memory.h"
#include "bench/host_memory.h"
#include "bench/gpu_probe.h"

namespace collbench {
namespace {

const GpuProbe kEight{8, "", true};
const GpuProbe kNone{0, "cudaErrorNoDevice: no CUDA-capable device is detected", false};
const GpuProbe kOldDriver{0, "cudaErrorInsufficientDriver: CUDA driver version is insufficient", true};

TEST(BackendChoice, EveryProcessWithGpusPicksNccl) {
  const AutoChoice c = decide_auto(kEight, true, true);
  EXPECT_TRUE(c.nccl);
  EXPECT_FALSE(c.error);
  EXPECT_EQ(c.reason, "auto: 8 GPU(s) visible");
}

TEST(BackendChoice, NoGpuAnywherePicksMpiAndSaysWhy) {
  const AutoChoice c = decide_auto(kNone, false, false);
  EXPECT_FALSE(c.nccl);
  EXPECT_FALSE(c.error);
  EXPECT_EQ(c.reason, "auto: no GPU visible (cudaErrorNoDevice: no CUDA-capable device is detected)");
}

TEST(BackendChoice, GpuPresentButUnusableIsNamedInTheHeader) {
  const AutoChoice c = decide_auto(kOldDriver, false, false);
  EXPECT_FALSE(c.nccl);
  EXPECT_FALSE(c.error);
  EXPECT_NE(c.reason.find("a GPU is present but CUDA cannot use it (cudaErrorInsufficientDriver"), std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("measuring host MPI instead"), std::string::npos) << c.reason;
}

TEST(BackendChoice, OnlyAFailingCudaOnAShownGpuIsABrokenNode) {
  GpuProbe broken{0, "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version", true};
  EXPECT_TRUE(gpu_unusable(broken));
  // Hidden on purpose (CUDA_VISIBLE_DEVICES="", a CPU-only job's cgroup): the files stay, CUDA sees none.
  EXPECT_FALSE(gpu_unusable(GpuProbe{0, "cudaErrorNoDevice: no CUDA-capable device is detected", true}));
  EXPECT_FALSE(gpu_unusable(GpuProbe{0, broken.cuda_error, false}));  // no device files: no GPU here
  EXPECT_FALSE(gpu_unusable(GpuProbe{8, "", true}));
}

TEST(BackendChoice, OneSickProcessAmongGpuProcessesStopsTheRun) {
  const AutoChoice sick = decide_auto(kOldDriver, false, true);
  ASSERT_TRUE(sick.error);
  EXPECT_NE(sick.error->find("cudaErrorInsufficientDriver"), std::string::npos) << *sick.error;
  EXPECT_NE(sick.error->find("other processes use their GPUs"), std::string::npos) << *sick.error;
  // Its healthy peers carry on to the agreement, which then stops them too.
  const AutoChoice healthy = decide_auto(kEight, false, true);
  EXPECT_FALSE(healthy.error);
  EXPECT_TRUE(healthy.nccl);
}

TEST(GpuMemory, BuffersMustLeaveNcclItsHeadroom) {
  constexpr std::uint64_t GiB = 1ull << 30;
  EXPECT_FALSE(gpu_buffers_do_not_fit(70 * GiB, 80 * GiB));
  EXPECT_FALSE(gpu_buffers_do_not_fit(79 * GiB, 80 * GiB));  // exactly the headroom left
  const auto why = gpu_buffers_do_not_fit(79 * GiB + 1, 80 * GiB);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("NCCL needs 1 GiB kept free"), std::string::npos) << *why;
  EXPECT_NE(why->find("at most 79 GiB"), std::string::npos) << *why;
  EXPECT_TRUE(gpu_buffers_do_not_fit(1, GiB / 2));  // less free than the headroom itself
}

// MemAvailable comes in KiB: 24047888 KiB reads as what it is, not as a count of KiB.
TEST(HostMemory, TheRefusalSaysSizesAsPeopleReadThem) {
  constexpr std::uint64_t GiB = 1ull << 30;
  const std::uint64_t available = 24047888ull * 1024;
  EXPECT_NO_THROW(check_host_buffers(GiB, 2, 2, "host buffers", available));
  try {
    check_host_buffers(8 * GiB, 2, 2, "host buffers", available);
    ADD_FAILURE() << "32 GiB of buffers fit in 22.9 GiB";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "-e too large: 2 rank(s) on this node need 32 GiB of host buffers but 22.9 GiB is "
                           "available; lower -e");
  }
  try {
    check_host_buffers(3 * GiB + 1, 3, 1, "send and receive buffers", 5 * GiB + 12345);
    ADD_FAILURE() << "9 GiB of buffers fit in 5 GiB";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("need 9.0 GiB of send and receive buffers but 5.0 GiB is available"),
              std::string::npos)
        << e.what();
  }
}

TEST(GpuAssignment, TwoProcessesOnOneGpuAreRefusedNamingBoth) {
  const std::vector<std::vector<std::string>> two_on_one{{"0000:53:00.0"}, {"0000:53:00.0"}};
  const auto why = gpu_shared(two_on_one, {4, 5}, 1);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("GPU 0000:53:00.0 is driven by more than one process (ranks 4, 5"), std::string::npos) << *why;
  // -g 2 with two processes that see the same two GPUs.
  const std::vector<std::vector<std::string>> overlap{{"a", "b"}, {"b", "c"}};
  EXPECT_TRUE(gpu_shared(overlap, {0, 1}, 0));
  const std::vector<std::vector<std::string>> apart{{"a", "b"}, {"c", "d"}};
  EXPECT_FALSE(gpu_shared(apart, {0, 1}, 0));
  EXPECT_FALSE(gpu_shared(apart, {0, 1}, 1));
  EXPECT_FALSE(gpu_shared({{}, {"a"}}, {0, 1}, 0));  // a process that failed to open its GPUs
}

}  // namespace
}  // namespace collbench
