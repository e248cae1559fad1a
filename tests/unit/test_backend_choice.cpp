// --backend auto from what every process found, and whether a sweep's buffers fit on a GPU.
#include <gtest/gtest.h>

#include "bench/gpu_memory.h"
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

}  // namespace
}  // namespace collbench
