// The nccl backend on every visible GPU of one process (MPI singleton, -g = GPU count): each
// collective runs and checks clean. Skips without a GPU.
#include <gtest/gtest.h>
#include <mpi.h>

#include <exception>
#include <memory>
#include <string>

#include "bench/collectives.h"
#include "bench/dtype.h"
#include "bench/mpi_control.h"
#include "bench/nccl_backend.h"

namespace collbench {
namespace {

constexpr double kInitTimeout = 120.0;

class NcclBackendGpu : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {  // before MPI_Finalize
    backend_.reset();
    control_.reset();
  }

  // One backend for the suite (NCCL init takes a while), made by the first test that runs.
  void SetUp() override {
    if (visible_gpu_count() == 0) GTEST_SKIP() << "no GPU visible: cudaGetDeviceCount found none (needs an NVIDIA GPU)";
    if (backend_ != nullptr) return;
    try {
      control_ = std::make_unique<MpiControl>();
      backend_ = std::make_unique<NcclBackend>(NcclSetup{visible_gpu_count(), kInitTimeout, false, nullptr, nullptr},
                                               *control_);
    } catch (const std::exception& e) {
      FAIL() << "NcclBackend(" << visible_gpu_count() << ") threw: " << e.what();
    }
  }

  static CallShape shape(Coll c, DType t, RedOp op, std::uint64_t bytes, Placement pl) {
    CallShape call;
    call.coll = c;
    call.dtype = t;
    call.redop = op;
    call.root = backend_->world_ranks() - 1;  // not 0, so a root mix-up shows
    call.placement = pl;
    call.counts = collective_info(c).counts(bytes / dtype_info(t).size, dtype_info(t).size, backend_->world_ranks());
    return call;
  }

  // Runs `call` twice (timed) and checks the result; then proves the check sees a spoiled element.
  static void run_and_check(const CallShape& call, const std::string& what) {
    const std::size_t elt = dtype_info(call.dtype).size;
    backend_->reserve(call.counts.send * elt, call.counts.recv * elt);
    ASSERT_FALSE(backend_->unsupported(call).has_value()) << what << ": " << *backend_->unsupported(call);
    backend_->fill(call, 42);
    LocalSamples samples;
    backend_->run(call, 2, &samples, nullptr);
    ASSERT_EQ(samples.size(), static_cast<std::size_t>(backend_->local_ranks())) << what;
    for (const auto& s : samples) {
      ASSERT_EQ(s.size(), 2u) << what;
      for (double t : s) EXPECT_GE(t, 0.0) << what;
    }
    if (!backend_->verifiable(call)) return;
    EXPECT_EQ(backend_->count_wrong(call, 42), 0) << what;
    if (call.counts.recv == 0) return;
    backend_->corrupt_result(call);
    EXPECT_EQ(backend_->count_wrong(call, 42), 1) << what << " (after corrupt_result)";
  }

  static std::unique_ptr<MpiControl> control_;
  static std::unique_ptr<NcclBackend> backend_;
};

std::unique_ptr<MpiControl> NcclBackendGpu::control_;
std::unique_ptr<NcclBackend> NcclBackendGpu::backend_;

TEST_F(NcclBackendGpu, DescribesItself) {
  EXPECT_EQ(backend_->name(), "nccl");
  EXPECT_EQ(backend_->local_ranks(), visible_gpu_count());
  EXPECT_EQ(backend_->world_ranks(), visible_gpu_count());  // one process
  EXPECT_EQ(backend_->first_rank(), 0);
  const auto devs = backend_->devices();
  ASSERT_EQ(devs.size(), static_cast<std::size_t>(visible_gpu_count()));
  for (const auto& d : devs) {
    EXPECT_GE(d.device, 0);
    EXPECT_FALSE(d.bus_id.empty());
    EXPECT_FALSE(d.name.empty());
  }
  const auto v = backend_->versions();
  for (const char* key : {"nccl", "cuda_driver", "cuda_runtime", "mpi"}) EXPECT_TRUE(v.count(key)) << key;
}

TEST_F(NcclBackendGpu, EveryCollectiveFloatBothPlacements) {
  for (const auto& info : all_collectives())
    for (Placement pl : {Placement::OutOfPlace, Placement::InPlace})
      for (std::uint64_t bytes : {8ull, 4ull << 10, 1ull << 20, 12'000'004ull})
        run_and_check(shape(info.coll, DType::Float, RedOp::Sum, bytes, pl),
                      std::string(info.name) + (pl == Placement::InPlace ? " in-place " : " out-of-place ") +
                          std::to_string(bytes) + " B");
}

TEST_F(NcclBackendGpu, ReductionsEveryTypeAndOp) {
  for (Coll c : {Coll::AllReduce, Coll::ReduceScatter})
    for (const auto& d : all_dtypes())
      for (RedOp op : {RedOp::Sum, RedOp::Prod, RedOp::Max, RedOp::Min})
        run_and_check(shape(c, d.type, op, 64 << 10, Placement::OutOfPlace),
                      std::string(collective_info(c).name) + " " + std::string(d.name) + " " +
                          std::string(redop_name(op)));
}

TEST_F(NcclBackendGpu, UnverifiableInPlaceCases) {
  EXPECT_FALSE(backend_->verifiable(shape(Coll::AllToAll, DType::Float, RedOp::Sum, 1024, Placement::InPlace)));
  EXPECT_FALSE(backend_->verifiable(shape(Coll::SendRecv, DType::Float, RedOp::Sum, 1024, Placement::InPlace)));
  EXPECT_TRUE(backend_->verifiable(shape(Coll::AllToAll, DType::Float, RedOp::Sum, 1024, Placement::OutOfPlace)));
  EXPECT_TRUE(backend_->verifiable(shape(Coll::AllReduce, DType::Float, RedOp::Sum, 1024, Placement::InPlace)));
}

TEST_F(NcclBackendGpu, RunWithoutSamples) {
  const auto call = shape(Coll::AllReduce, DType::Float, RedOp::Sum, 1 << 20, Placement::OutOfPlace);
  backend_->reserve(call.counts.send * 4, call.counts.recv * 4);
  backend_->fill(call, 3);
  backend_->run(call, 3, nullptr, nullptr);
  EXPECT_EQ(backend_->count_wrong(call, 3), 0);
}

// ncclCommSplit into one group: the child's collectives run and check clean, and more iterations
// than buffer slots exercise the moving offsets of the timed loop.
TEST_F(NcclBackendGpu, SplitChildRunsAndChecks) {
  std::unique_ptr<Backend> child;
  try {
    child = backend_->split(0);
  } catch (const std::exception& e) {
    FAIL() << "split threw: " << e.what();
  }
  EXPECT_EQ(child->world_ranks(), backend_->world_ranks());
  EXPECT_EQ(child->first_rank(), 0);
  CallShape call = shape(Coll::AllReduce, DType::Float, RedOp::Sum, 1 << 20, Placement::OutOfPlace);
  child->reserve(8 << 20, 8 << 20);
  child->fill(call, 9);
  LocalSamples samples;
  child->run(call, 20, &samples, nullptr);
  ASSERT_EQ(samples.size(), static_cast<std::size_t>(child->local_ranks()));
  EXPECT_EQ(samples[0].size(), 20u);
  child->run(call, 1, nullptr, nullptr);
  EXPECT_EQ(child->count_wrong(call, 9), 0);
}

}  // namespace
}  // namespace collbench

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
