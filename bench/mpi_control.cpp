#include "bench/mpi_control.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "bench/errors.h"
#include "bench/mpi_check.h"

namespace collbench {

std::string this_host() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown-host";
  return name;
}

void mpi_fail(const char* call, int code, const std::source_location& at) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  throw RunError(fmt::format("{} failed on rank {} (host {}): {}{}", call, rank, this_host(), text, call_site(at)));
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

void MpiControl::broadcast(std::span<int> values) {
  MPI_CHECK(MPI_Bcast(values.data(), static_cast<int>(values.size()), MPI_INT, 0, comm_));
}

double MpiControl::broadcast(double value) {
  MPI_CHECK(MPI_Bcast(&value, 1, MPI_DOUBLE, 0, comm_));
  return value;
}

std::string MpiControl::broadcast(const std::string& value) {
  int len = static_cast<int>(value.size());
  MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, 0, comm_));
  std::string out = value;
  out.resize(static_cast<std::size_t>(len));
  MPI_CHECK(MPI_Bcast(out.data(), len, MPI_CHAR, 0, comm_));
  return out;
}

std::vector<int> MpiControl::all_gather(int mine) {
  std::vector<int> all(static_cast<std::size_t>(size_));
  MPI_CHECK(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm_));
  return all;
}

// One tag for the clock sync's exchanges; nothing else on this communicator is point to point.
constexpr int kPointTag = 7;

void MpiControl::send(int to, std::span<const double> values) {
  MPI_CHECK(MPI_Send(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, to, kPointTag, comm_));
}

void MpiControl::receive(int from, std::span<double> values) {
  MPI_CHECK(MPI_Recv(values.data(), static_cast<int>(values.size()), MPI_DOUBLE, from, kPointTag, comm_,
                     MPI_STATUS_IGNORE));
}

namespace {

// The strings laid end to end, with the offsets Gatherv/Allgatherv take, split back apart.
std::vector<std::string> split_at(const std::string& all, const std::vector<int>& lens, const std::vector<int>& offsets) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

std::vector<int> offsets_of(const std::vector<int>& lens, int* total) {
  std::vector<int> offsets(lens.size());
  *total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = *total;
    *total += lens[i];
  }
  return offsets;
}

}  // namespace

std::vector<std::string> MpiControl::gather_strings(const std::string& mine) {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, comm_));
  int total = 0;
  const std::vector<int> offsets = offsets_of(lens, &total);
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, comm_));
  return split_at(all, lens, offsets);
}

std::vector<std::string> MpiControl::all_gather_strings(const std::string& mine) {
  const std::vector<int> lens = all_gather(static_cast<int>(mine.size()));
  int total = 0;
  const std::vector<int> offsets = offsets_of(lens, &total);
  std::string all(static_cast<std::size_t>(total), '\0');
  MPI_CHECK(MPI_Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), lens.data(),
                           offsets.data(), MPI_CHAR, comm_));
  return split_at(all, lens, offsets);
}

void MpiControl::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Abort(comm_, code);
  _exit(code);
}

}  // namespace collbench
