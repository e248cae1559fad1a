#include "bench/mpi_control.h"

#include <fmt/format.h>
#include <unistd.h>

#include "bench/errors.h"
#include "bench/mpi_check.h"

namespace collbench {

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

void mpi_fail(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw RunError(fmt::format("{} failed on rank {} (host {}): {}", call, rank, this_host(), text));
}

MPI_Comm dup_world(int* rank, int* size) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_CHECK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_CHECK(MPI_Comm_rank(comm, rank));
  MPI_CHECK(MPI_Comm_size(comm, size));
  return comm;
}

MpiControl::MpiControl() : comm_(dup_world(&rank_, &size_)) {}

MpiControl::MpiControl(MPI_Comm owned) : comm_(owned) {
  MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  MPI_CHECK(MPI_Comm_size(comm_, &size_));
}

std::unique_ptr<Control> MpiControl::split(int color) {
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_CHECK(MPI_Comm_split(comm_, color, rank_, &sub));
  MPI_CHECK(MPI_Comm_set_errhandler(sub, MPI_ERRORS_RETURN));
  return std::unique_ptr<Control>(new MpiControl(sub));
}

MpiControl::~MpiControl() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiControl::barrier() { MPI_CHECK(MPI_Barrier(comm_)); }

bool MpiControl::broadcast_flag(bool value) {
  int v = value ? 1 : 0;
  MPI_CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, comm_));
  return v != 0;
}

std::vector<double> MpiControl::gather_to_root(std::span<const double> mine) {
  std::vector<double> all(rank_ == 0 ? mine.size() * static_cast<std::size_t>(size_) : 0);
  MPI_CHECK(MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
                       static_cast<int>(mine.size()), MPI_DOUBLE, 0, comm_));
  return all;
}

std::int64_t MpiControl::min(std::int64_t value) {
  std::int64_t out = 0;
  MPI_CHECK(MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, comm_));
  return out;
}

}  // namespace collbench
