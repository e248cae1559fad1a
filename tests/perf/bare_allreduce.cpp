// The reference for scripts/overhead.sh: a bare MPI_Allreduce loop on float sum, timed per
// iteration with the same clock collbench uses, reduced across ranks by the mean, printed as
// "bytes median_us" per size. Usage: bare_allreduce MIN_BYTES MAX_BYTES WARMUP ITERS
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 5) {
    std::fprintf(stderr, "usage: bare_allreduce MIN_BYTES MAX_BYTES WARMUP ITERS\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::size_t min_bytes = std::strtoull(argv[1], nullptr, 10), max_bytes = std::strtoull(argv[2], nullptr, 10);
  const int warmup = std::atoi(argv[3]), iters = std::atoi(argv[4]);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<float> send(max_bytes / 4, 1.0f), recv(max_bytes / 4);
  for (std::size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int count = static_cast<int>(bytes / 4);
    for (int i = 0; i < warmup; ++i) MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    std::vector<double> t(iters), mean(iters);
    for (int i = 0; i < iters; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      t[i] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    MPI_Reduce(t.data(), mean.data(), iters, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      for (double& m : mean) m = m / size * 1e6;
      std::nth_element(mean.begin(), mean.begin() + iters / 2, mean.end());
      std::printf("%zu %.3f\n", bytes, mean[iters / 2]);
    }
  }
  MPI_Finalize();
  return 0;
}
