// Host stand-in for libnccl: each communicator is a set of ranks spread over the processes of an
// mpirun (several per process with -g), the data on host memory (stub_cuda.cpp).
//
// Every call is queued in the calling thread's group; at the outermost ncclGroupEnd the processes
// of each communicator exchange their queued calls and inputs (MPI_Allgatherv on the communicator's
// own MPI communicator) and every process computes its own ranks' results with NCCL's semantics:
// collectives match in call order per communicator, ncclSend/ncclRecv match in order per
// (sender, receiver) pair (NCCL src/enqueue.cc keeps p2p calls in per-peer FIFO lists). All of a
// group's inputs are read before any output is written, so in-place calls need no special case.
// What NCCL would leave to hang or corrupt (mismatched calls, a buffer outside its allocation or on
// another device, partly overlapping buffers) fails with ncclInvalidUsage / ncclInvalidArgument on
// every rank and is named by ncclGetLastError.
//
// NCCLSTUB_LOG=DIR writes each call's arguments (buffers as allocation id + offset) to
// DIR/calls.<process>.log for tests/ncclstub/check_calls.py.
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <tuple>
#include <unistd.h>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/ncclstub/stub_state.h"

namespace ncclstub {

void log_line(const char* fmt, ...) {
  State& s = state();
  if (!s.log_opened) {
    s.log_opened = true;
    if (const char* dir = std::getenv("NCCLSTUB_LOG"); dir != nullptr && *dir != '\0') {
      int up = 0;
      MPI_Initialized(&up);
      if (up) {
        const std::string path = std::string(dir) + "/calls." + std::to_string(process_index()) + ".log";
        s.log = std::fopen(path.c_str(), "w");
      } else {
        s.log_opened = false;  // before MPI_Init the process has no stable name yet
      }
    }
  }
  if (s.log == nullptr) return;
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(s.log, fmt, ap);
  va_end(ap);
  std::fputc('\n', s.log);
  std::fflush(s.log);
}

}  // namespace ncclstub

namespace {

using ncclstub::state;

constexpr unsigned kMagic = 0x5eedc0de;

struct Shared {
  MPI_Comm mpi = MPI_COMM_NULL;
  int serial = 0;  // creation order: the same on every process
};

struct StubComm {
  unsigned magic = kMagic;
  int rank = 0, nranks = 0, device = 0;
  bool blocking = true;
  std::shared_ptr<Shared> shared;
  int pending_polls = 0;  // a non-blocking call reports ncclInProgress this many more times
  ncclResult_t async = ncclSuccess;
};

enum class Kind : int { Init, Split, Finalize, AllReduce, AllGather, ReduceScatter, AlltoAll, Broadcast, Reduce, Send, Recv };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Init: return "init";
    case Kind::Split: return "split";
    case Kind::Finalize: return "finalize";
    case Kind::AllReduce: return "all_reduce";
    case Kind::AllGather: return "all_gather";
    case Kind::ReduceScatter: return "reduce_scatter";
    case Kind::AlltoAll: return "alltoall";
    case Kind::Broadcast: return "broadcast";
    case Kind::Reduce: return "reduce";
    case Kind::Send: return "send";
    case Kind::Recv: return "recv";
  }
  return "?";
}

bool is_p2p(Kind k) { return k == Kind::Send || k == Kind::Recv; }

struct Op {
  Kind kind;
  StubComm* comm = nullptr;
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  ncclDataType_t type = ncclInt8;
  ncclRedOp_t red = ncclSum;
  int root = -1, peer = -1;
  cudaStream_t stream = nullptr;
  // init and split
  ncclComm_t* out = nullptr;
  int nranks = 0, rank = 0, color = 0, key = 0;
  ncclUniqueId id{};
  bool blocking = true;
};

thread_local int depth = 0;
thread_local std::vector<Op> queued;
thread_local std::string last_error;
int shared_serial = 0;

std::size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

// Half and bfloat16 through float: exact for the small integers collbench's pattern uses.
float half_to_float(std::uint16_t h) {
  const unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
  std::uint32_t bits = (h & 0x8000u) << 16;
  if (e != 0) bits |= ((e - 15 + 127) << 23) | (m << 13);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
std::uint16_t float_to_half(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  const int e = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
  const auto sign = static_cast<std::uint16_t>((b >> 16) & 0x8000u);
  if ((b & 0x7fffffffu) == 0 || e <= 0) return sign;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7c00u);
  return static_cast<std::uint16_t>(sign | (e << 10) | ((b >> 13) & 0x3ffu));
}

double load(ncclDataType_t t, const std::byte* p, std::size_t i) {
  switch (t) {
    case ncclInt8: return reinterpret_cast<const std::int8_t*>(p)[i];
    case ncclUint8: return reinterpret_cast<const std::uint8_t*>(p)[i];
    case ncclInt32: return reinterpret_cast<const std::int32_t*>(p)[i];
    case ncclUint32: return reinterpret_cast<const std::uint32_t*>(p)[i];
    case ncclInt64: return static_cast<double>(reinterpret_cast<const std::int64_t*>(p)[i]);
    case ncclUint64: return static_cast<double>(reinterpret_cast<const std::uint64_t*>(p)[i]);
    case ncclFloat16: return half_to_float(reinterpret_cast<const std::uint16_t*>(p)[i]);
    case ncclBfloat16: {
      const std::uint32_t bits = std::uint32_t{reinterpret_cast<const std::uint16_t*>(p)[i]} << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case ncclFloat32: return reinterpret_cast<const float*>(p)[i];
    case ncclFloat64: return reinterpret_cast<const double*>(p)[i];
    default: return 0;
  }
}

void store(ncclDataType_t t, std::byte* p, std::size_t i, double v) {
  switch (t) {
    case ncclInt8: reinterpret_cast<std::int8_t*>(p)[i] = static_cast<std::int8_t>(v); break;
    case ncclUint8: reinterpret_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(v); break;
    case ncclInt32: reinterpret_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v); break;
    case ncclUint32: reinterpret_cast<std::uint32_t*>(p)[i] = static_cast<std::uint32_t>(v); break;
    case ncclInt64: reinterpret_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v); break;
    case ncclUint64: reinterpret_cast<std::uint64_t*>(p)[i] = static_cast<std::uint64_t>(v); break;
    case ncclFloat16: reinterpret_cast<std::uint16_t*>(p)[i] = float_to_half(static_cast<float>(v)); break;
    case ncclBfloat16: {
      const float f = static_cast<float>(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      reinterpret_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(bits >> 16);
      break;
    }
    case ncclFloat32: reinterpret_cast<float*>(p)[i] = static_cast<float>(v); break;
    case ncclFloat64: reinterpret_cast<double*>(p)[i] = v; break;
    default: break;
  }
}

double combine(ncclRedOp_t op, double a, double b) {
  switch (op) {
    case ncclSum: return a + b;
    case ncclProd: return a * b;
    case ncclMax: return std::max(a, b);
    case ncclMin: return std::min(a, b);
    default: return a + b;
  }
}

// NCCL's configuration files: copied into the environment without overwriting what is set
// (NCCL src/misc/param.cc, initEnv/setEnvFile: NCCL_CONF_FILE or ~/.nccl.conf, then /etc/nccl.conf).
void load_conf_files() {
  static bool done = false;
  if (done) return;
  done = true;
  auto apply = [](const std::string& path) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      const auto eq = line.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      setenv(line.substr(0, eq).c_str(), line.substr(eq + 1).c_str(), 0);
    }
  };
  if (const char* f = std::getenv("NCCL_CONF_FILE"); f != nullptr && *f != '\0') apply(f);
  else if (const char* home = std::getenv("HOME"); home != nullptr) apply(std::string(home) + "/.nccl.conf");
  apply("/etc/nccl.conf");
}

// NCCL_COMM_BLOCKING overrides config.blocking when set (NCCL src/init.cc, parseCommConfig).
bool effective_blocking(const ncclConfig_t* config) {
  load_conf_files();
  if (const char* env = std::getenv("NCCL_COMM_BLOCKING"); env != nullptr && *env != '\0') return std::atoi(env) != 0;
  return config == nullptr || config->blocking != 0;
}

StubComm* as_stub(ncclComm_t c) {
  auto* s = reinterpret_cast<StubComm*>(c);
  return s != nullptr && s->magic == kMagic ? s : nullptr;
}

std::string where(const void* p) {
  if (p == nullptr) return "-";
  const ncclstub::Allocation* a = ncclstub::find_allocation(p, 0);
  if (a == nullptr) return "?";
  std::uintptr_t base = 0;
  for (const auto& [b, al] : state().allocs)
    if (al.id == a->id) base = b;
  return std::to_string(a->id) + "+" + std::to_string(reinterpret_cast<std::uintptr_t>(p) - base);
}

// Bytes an op reads from its send buffer, and writes to its receive buffer.
std::size_t send_bytes(const Op& o) {
  const std::size_t e = type_size(o.type), n = static_cast<std::size_t>(o.comm->nranks);
  switch (o.kind) {
    case Kind::AllReduce: case Kind::AllGather: case Kind::Reduce: case Kind::Send: return o.count * e;
    case Kind::ReduceScatter: case Kind::AlltoAll: return n * o.count * e;
    case Kind::Broadcast: return o.comm->rank == o.root ? o.count * e : 0;
    default: return 0;
  }
}
std::size_t recv_bytes(const Op& o) {
  const std::size_t e = type_size(o.type), n = static_cast<std::size_t>(o.comm->nranks);
  switch (o.kind) {
    case Kind::AllReduce: case Kind::ReduceScatter: case Kind::Broadcast: case Kind::Recv: return o.count * e;
    case Kind::Reduce: return o.comm->rank == o.root ? o.count * e : 0;
    case Kind::AllGather: case Kind::AlltoAll: return n * o.count * e;
    default: return 0;
  }
}

// NCCL's in-place rules: all_gather's input is its rank's block of the output, reduce_scatter's
// output its rank's block of the input, the others the same address (NCCL docs, "In-place operations").
bool in_place(const Op& o) {
  const auto* s = static_cast<const std::byte*>(o.send);
  const auto* r = static_cast<const std::byte*>(o.recv);
  const std::size_t block = o.count * type_size(o.type) * static_cast<std::size_t>(o.comm->rank);
  if (o.kind == Kind::AllGather) return s == r + block;
  if (o.kind == Kind::ReduceScatter) return s + block == r;
  return s == r;
}

// Why an op's arguments are wrong, or empty.
std::string invalid(const Op& o) {
  if (type_size(o.type) == 0) return "unknown datatype";
  if ((o.kind == Kind::Broadcast || o.kind == Kind::Reduce) && (o.root < 0 || o.root >= o.comm->nranks))
    return "root " + std::to_string(o.root) + " out of range";
  if (is_p2p(o.kind) && (o.peer < 0 || o.peer >= o.comm->nranks)) return "peer " + std::to_string(o.peer) + " out of range";
  const std::size_t sb = send_bytes(o), rb = recv_bytes(o);
  for (auto [p, bytes, what] : {std::tuple{static_cast<const void*>(o.send), sb, "send"},
                                std::tuple{static_cast<const void*>(o.recv), rb, "recv"}}) {
    if (bytes == 0) continue;
    const ncclstub::Allocation* a = ncclstub::find_allocation(p, bytes);
    if (a == nullptr) return std::string(what) + " buffer (" + std::to_string(bytes) + " bytes) is outside every allocation";
    if (a->device != o.comm->device)
      return std::string(what) + " buffer is on device " + std::to_string(a->device) + ", the communicator on " +
             std::to_string(o.comm->device);
  }
  if (!is_p2p(o.kind) && sb != 0 && rb != 0 && !in_place(o)) {
    const auto s = reinterpret_cast<std::uintptr_t>(o.send), r = reinterpret_cast<std::uintptr_t>(o.recv);
    if (s < r + rb && r < s + sb) return "send and recv buffers overlap without being in place";
  }
  return {};
}

// The fixed part of one queued call as exchanged between processes.
struct Wire {
  int kind, rank, peer, root, type, red;
  std::uint64_t count, payload;
};

struct Rec {
  Wire w;
  const std::byte* data;
};

// Allgatherv of each process's bytes over `comm`; returns everything, and each process's extent.
std::vector<char> exchange(MPI_Comm comm, const std::vector<char>& mine, std::vector<int>* sizes_out) {
  int np = 0;
  MPI_Comm_size(comm, &np);
  std::vector<int> sizes(static_cast<std::size_t>(np)), displs(static_cast<std::size_t>(np));
  const int n = static_cast<int>(mine.size());
  MPI_Allgather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, comm);
  int total = 0;
  for (int p = 0; p < np; ++p) displs[static_cast<std::size_t>(p)] = total, total += sizes[static_cast<std::size_t>(p)];
  std::vector<char> all(static_cast<std::size_t>(total) + 1);
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, comm);
  if (sizes_out != nullptr) *sizes_out = sizes;
  return all;
}

template <class T> void put(std::vector<char>& v, const T& x) {
  const auto* p = reinterpret_cast<const char*>(&x);
  v.insert(v.end(), p, p + sizeof x);
}

ncclResult_t fail(ncclResult_t r, const std::string& why) {
  last_error = "NCCL stub: " + why;
  return r;
}

void mark_pending(StubComm* c) {
  if (!c->blocking) c->pending_polls = 2;
}

// Every process's error text (empty where none); the first non-empty one, if any.
std::string agree_error(MPI_Comm comm, const std::string& mine) {
  std::vector<char> bytes(mine.begin(), mine.end());
  std::vector<int> sizes;
  const std::vector<char> all = exchange(comm, bytes, &sizes);
  std::size_t at = 0;
  for (int s : sizes) {
    if (s != 0) return std::string(all.data() + at, static_cast<std::size_t>(s));
    at += static_cast<std::size_t>(s);
  }
  return {};
}

ncclResult_t run_inits(std::vector<Op>& ops) {
  // Every init of one group shares its unique id (collbench's layout, and nccl-tests'); the
  // processes holding that id form the communicator's MPI communicator.
  std::string err;
  for (const Op& o : ops)
    if (std::memcmp(&o.id, &ops[0].id, sizeof o.id) != 0) err = "one group initializes communicators of two unique ids";
  std::uint32_t h = 2166136261u;
  for (std::size_t i = 0; i < sizeof ops[0].id; ++i) h = (h ^ static_cast<unsigned char>(ops[0].id.internal[i])) * 16777619u;
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  auto shared = std::make_shared<Shared>();
  MPI_Comm_split(MPI_COMM_WORLD, static_cast<int>(h & 0x7fffffff), world, &shared->mpi);
  shared->serial = ++shared_serial;
  // Every rank of [0, nranks) exactly once, over all processes.
  std::vector<char> mine;
  for (const Op& o : ops) put(mine, o.rank);
  const std::vector<char> all = exchange(shared->mpi, mine, nullptr);
  std::vector<int> seen(static_cast<std::size_t>(std::max(ops[0].nranks, 0)), 0);
  for (std::size_t at = 0; at + sizeof(int) <= all.size() - 1; at += sizeof(int)) {
    int r;
    std::memcpy(&r, all.data() + at, sizeof r);
    if (r < 0 || r >= ops[0].nranks) err = "rank " + std::to_string(r) + " is outside the communicator";
    else ++seen[static_cast<std::size_t>(r)];
  }
  for (std::size_t r = 0; r < seen.size() && err.empty(); ++r)
    if (seen[r] != 1) err = "rank " + std::to_string(r) + " initialized " + std::to_string(seen[r]) + " times";
  err = agree_error(shared->mpi, err);
  if (!err.empty()) return fail(ncclInvalidUsage, err);
  for (Op& o : ops) {
    StubComm* c = o.comm;  // allocated by the call, as NCCL does (the caller may copy the handle at once)
    c->rank = o.rank;
    c->nranks = o.nranks;
    c->blocking = o.blocking;
    c->shared = shared;
    ncclstub::log_line("init comm=%d rank=%d nranks=%d dev=%d blocking=%d", shared->serial, c->rank, c->nranks,
                       c->device, c->blocking ? 1 : 0);
    mark_pending(c);
  }
  return ncclSuccess;
}

ncclResult_t run_splits(std::vector<Op>& ops) {
  std::string err;
  const std::shared_ptr<Shared> parent = ops[0].comm->shared;
  int color = ops[0].color;
  for (const Op& o : ops) {
    if (o.comm->shared != parent) err = "one group splits communicators of two parents";
    // One MPI communicator per child: the stand-in needs one color for all of a process's ranks.
    if (o.color != color) err = "the NCCL stub needs one split color for all ranks of a process";
  }
  struct Entry {
    int prank, color, key;
  };
  std::vector<char> mine;
  for (const Op& o : ops) put(mine, Entry{o.comm->rank, o.color, o.key});
  const std::vector<char> all = exchange(parent->mpi, mine, nullptr);
  std::vector<Entry> entries((all.size() - 1) / sizeof(Entry));
  std::memcpy(entries.data(), all.data(), entries.size() * sizeof(Entry));
  err = agree_error(parent->mpi, err);
  if (!err.empty()) return fail(ncclInvalidUsage, err);
  int world = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world);
  auto child = std::make_shared<Shared>();
  MPI_Comm_split(parent->mpi, color == NCCL_SPLIT_NOCOLOR ? MPI_UNDEFINED : color, world, &child->mpi);
  child->serial = ++shared_serial;  // every process counts every split, member or not
  for (Op& o : ops) {
    if (o.color == NCCL_SPLIT_NOCOLOR) {
      *o.out = nullptr;
      continue;
    }
    // Ranks of one color ordered by key, ties by parent rank (NCCL src/init.cc, commGetSplitInfo).
    std::vector<Entry> members;
    for (const Entry& e : entries)
      if (e.color == o.color) members.push_back(e);
    std::stable_sort(members.begin(), members.end(), [](const Entry& a, const Entry& b) {
      return a.key != b.key ? a.key < b.key : a.prank < b.prank;
    });
    auto* c = new StubComm;
    c->nranks = static_cast<int>(members.size());
    for (std::size_t i = 0; i < members.size(); ++i)
      if (members[i].prank == o.comm->rank) c->rank = static_cast<int>(i);
    c->device = o.comm->device;
    c->blocking = o.blocking;
    c->shared = child;
    ncclstub::log_line("split comm=%d parent=%d prank=%d rank=%d nranks=%d color=%d key=%d blocking=%d",
                       child->serial, parent->serial, o.comm->rank, c->rank, c->nranks, o.color, o.key,
                       c->blocking ? 1 : 0);
    mark_pending(o.comm);
    mark_pending(c);
    *o.out = reinterpret_cast<ncclComm_t>(c);
  }
  return ncclSuccess;
}

void log_call(const Op& o) {
  ncclstub::log_line("call comm=%d dev=%d rank=%d nranks=%d op=%s count=%zu type=%d red=%d root=%d peer=%d send=%s recv=%s "
                     "inplace=%d blocking=%d",
                     o.comm->shared->serial, o.comm->device, o.comm->rank, o.comm->nranks, kind_name(o.kind), o.count,
                     static_cast<int>(o.type), static_cast<int>(o.red), o.root, o.peer,
                     where(o.kind == Kind::Recv ? nullptr : o.send).c_str(),
                     where(o.kind == Kind::Send ? nullptr : o.recv).c_str(), !is_p2p(o.kind) && in_place(o) ? 1 : 0,
                     o.comm->blocking ? 1 : 0);
}

// One communicator's share of a group: exchange the calls and inputs, compute the local outputs.
ncclResult_t run_calls(const std::shared_ptr<Shared>& shared, std::vector<Op*>& ops) {
  std::string err;
  std::vector<char> mine;
  for (const Op* o : ops) {
    log_call(*o);
    if (err.empty()) err = invalid(*o);
  }
  if (!err.empty()) err = "rank " + std::to_string(ops[0]->comm->rank) + ": " + err;
  for (const Op* o : ops) {
    const std::size_t sb = err.empty() ? send_bytes(*o) : 0;
    put(mine, Wire{static_cast<int>(o->kind), o->comm->rank, o->peer, o->root, static_cast<int>(o->type),
                   static_cast<int>(o->red), o->count, sb});
    const auto* p = static_cast<const char*>(o->send);
    if (sb != 0) mine.insert(mine.end(), p, p + sb);
    mine.resize(mine.size() + (8 - sb % 8) % 8);  // the next record stays 8-byte aligned
  }
  err = agree_error(shared->mpi, err);
  if (!err.empty()) return fail(ncclInvalidArgument, err);
  const std::vector<char> all = exchange(shared->mpi, mine, nullptr);
  const int n = ops[0]->comm->nranks;
  std::vector<std::vector<Rec>> colls(static_cast<std::size_t>(n));
  std::vector<std::vector<Rec>> sends(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));  // [src * n + dst]
  for (std::size_t at = 0; at + sizeof(Wire) <= all.size() - 1;) {
    Rec r;
    std::memcpy(&r.w, all.data() + at, sizeof r.w);
    r.data = reinterpret_cast<const std::byte*>(all.data() + at + sizeof r.w);
    at += sizeof r.w + (r.w.payload + 7) / 8 * 8;
    if (r.w.rank < 0 || r.w.rank >= n) continue;
    const auto k = static_cast<Kind>(r.w.kind);
    if (k == Kind::Send) sends[static_cast<std::size_t>(r.w.rank * n + r.w.peer)].push_back(r);
    else if (k != Kind::Recv) colls[static_cast<std::size_t>(r.w.rank)].push_back(r);
  }
  // Results, computed from the exchanged copies only.
  std::vector<std::size_t> next_coll(static_cast<std::size_t>(n), 0), next_recv(static_cast<std::size_t>(n * n), 0);
  for (const Op* o : ops) {
    const int me = o->comm->rank;
    const std::size_t e = type_size(o->type), c = o->count, bytes = c * e;
    auto* out = static_cast<std::byte*>(o->recv);
    if (o->kind == Kind::Recv) {
      auto& fifo = sends[static_cast<std::size_t>(o->peer * n + me)];
      std::size_t& j = next_recv[static_cast<std::size_t>(o->peer * n + me)];
      if (j >= fifo.size()) err = "rank " + std::to_string(me) + " receives from " + std::to_string(o->peer) + ", which sends nothing in this group";
      else if (fifo[j].w.count != c || fifo[j].w.type != static_cast<int>(o->type))
        err = "send/recv count or type mismatch between ranks " + std::to_string(o->peer) + " and " + std::to_string(me);
      else std::memcpy(out, fifo[j].data, bytes);
      ++j;
      continue;
    }
    if (o->kind == Kind::Send) continue;
    const std::size_t j = next_coll[static_cast<std::size_t>(me)]++;
    std::vector<const Rec*> in(static_cast<std::size_t>(n), nullptr);
    for (int r = 0; r < n; ++r) {
      const auto& list = colls[static_cast<std::size_t>(r)];
      if (j >= list.size()) {
        err = std::string(kind_name(o->kind)) + ": rank " + std::to_string(r) + " did not call it in this group";
        break;
      }
      const Wire& w = list[j].w;
      if (w.kind != static_cast<int>(o->kind) || w.count != c || w.type != static_cast<int>(o->type) ||
          w.red != static_cast<int>(o->red) || w.root != o->root) {
        err = std::string(kind_name(o->kind)) + " on rank " + std::to_string(me) + " does not match rank " +
              std::to_string(r) + "'s call (" + kind_name(static_cast<Kind>(w.kind)) + ", count " +
              std::to_string(w.count) + ", root " + std::to_string(w.root) + ")";
        break;
      }
      in[static_cast<std::size_t>(r)] = &list[j];
    }
    if (!err.empty()) break;
    auto reduce = [&](std::size_t offset, std::byte* dst) {  // element-wise over the ranks' inputs
      for (std::size_t i = 0; i < c; ++i) {
        double acc = load(o->type, in[0]->data + offset, i);
        for (int r = 1; r < n; ++r) acc = combine(o->red, acc, load(o->type, in[static_cast<std::size_t>(r)]->data + offset, i));
        store(o->type, dst, i, acc);
      }
    };
    switch (o->kind) {
      case Kind::AllReduce: reduce(0, out); break;
      case Kind::Reduce: if (me == o->root) reduce(0, out); break;
      case Kind::ReduceScatter: reduce(static_cast<std::size_t>(me) * bytes, out); break;
      case Kind::AllGather:
        for (int r = 0; r < n; ++r) std::memcpy(out + static_cast<std::size_t>(r) * bytes, in[static_cast<std::size_t>(r)]->data, bytes);
        break;
      case Kind::AlltoAll:
        for (int r = 0; r < n; ++r)
          std::memcpy(out + static_cast<std::size_t>(r) * bytes, in[static_cast<std::size_t>(r)]->data + static_cast<std::size_t>(me) * bytes, bytes);
        break;
      case Kind::Broadcast: std::memcpy(out, in[static_cast<std::size_t>(o->root)]->data, bytes); break;
      default: break;
    }
  }
  // Test hook: NCCLSTUB_CORRUPT=OP spoils rank 0's first result element of every OP, so a test can
  // show that collbench's verification reads what NCCL wrote.
  if (const char* bad = std::getenv("NCCLSTUB_CORRUPT"); bad != nullptr && err.empty())
    for (Op* o : ops)
      if (o->comm->rank == 0 && recv_bytes(*o) != 0 && std::string(bad) == kind_name(o->kind))
        *static_cast<unsigned char*>(o->recv) ^= 1;
  err = agree_error(shared->mpi, err);
  if (!err.empty()) return fail(ncclInvalidUsage, err);
  for (Op* o : ops) mark_pending(o->comm);
  return ncclSuccess;
}

// A group's calls, one communicator at a time, in the order they first appear in the group.
ncclResult_t run_group(std::vector<Op>& calls) {
  std::vector<std::shared_ptr<Shared>> order;
  for (const Op& o : calls)
    if (std::find(order.begin(), order.end(), o.comm->shared) == order.end()) order.push_back(o.comm->shared);
  for (const auto& sh : order) {
    std::vector<Op*> mine;
    for (Op& o : calls)
      if (o.comm->shared == sh) mine.push_back(&o);
    if (const ncclResult_t r = run_calls(sh, mine); r != ncclSuccess) return r;
    ncclstub::log_line("group comm=%d calls=%zu", sh->serial, mine.size());
  }
  return ncclSuccess;
}

// Calls on capturing streams go to their graphs (stub_graph.cpp runs them at launch), the others
// run now; a group on both is refused, as NCCL cannot launch part of a group into a graph.
ncclResult_t capture_or_run(std::vector<Op>& calls) {
  std::vector<ncclstub::Graph*> graphs;
  std::size_t captured = 0;
  for (const Op& o : calls) {
    ncclstub::Graph* g = o.stream != nullptr ? reinterpret_cast<ncclstub::Stream*>(o.stream)->capture : nullptr;
    if (g == nullptr) continue;
    ++captured;
    if (std::find(graphs.begin(), graphs.end(), g) == graphs.end()) graphs.push_back(g);
  }
  if (captured == 0) return run_group(calls);
  if (captured != calls.size())
    return fail(ncclInvalidUsage, "a group with calls on both capturing and non-capturing streams");
  auto group = std::make_shared<ncclstub::CapturedGroup>();
  group->run = [calls]() mutable { return static_cast<int>(run_group(calls)); };
  group->graphs = graphs.size();
  for (ncclstub::Graph* g : graphs) g->groups.push_back(group);
  return ncclSuccess;
}

ncclResult_t flush() {
  std::vector<Op> ops;
  ops.swap(queued);
  if (ops.empty()) return ncclSuccess;
  bool nonblocking = false;
  std::vector<Op> inits, splits;
  for (Op& o : ops) {
    if (o.kind == Kind::Init) inits.push_back(o), nonblocking |= !o.blocking;
    else if (o.kind == Kind::Split) splits.push_back(o), nonblocking |= !o.comm->blocking;
  }
  if (!inits.empty())
    if (const ncclResult_t r = run_inits(inits); r != ncclSuccess) return r;
  if (!splits.empty())
    if (const ncclResult_t r = run_splits(splits); r != ncclSuccess) return r;
  std::vector<Op> calls;
  for (const Op& o : ops)
    if (o.kind != Kind::Init && o.kind != Kind::Split && o.kind != Kind::Finalize)
      calls.push_back(o), nonblocking |= !o.comm->blocking;
  if (const ncclResult_t r = capture_or_run(calls); r != ncclSuccess) return r;
  for (const Op& o : ops)
    if (o.kind == Kind::Finalize) mark_pending(o.comm), nonblocking |= !o.comm->blocking;
  // Test hook: NCCLSTUB_FORCE_INPROGRESS=1 answers in progress for groups of calls whatever the mode.
  if (!calls.empty() && ncclstub::env_int("NCCLSTUB_FORCE_INPROGRESS", 0) != 0) nonblocking = true;
  // A group with a non-blocking communicator returns ncclInProgress (NCCL src/group.cc, ncclGroupEndInternal).
  return nonblocking ? ncclInProgress : ncclSuccess;
}

ncclResult_t enqueue(Op o) {
  queued.push_back(o);
  return depth == 0 ? flush() : ncclSuccess;
}

ncclResult_t call(Kind k, const void* send, void* recv, std::size_t count, ncclDataType_t type, ncclRedOp_t red,
                  int root, int peer, ncclComm_t comm, cudaStream_t stream) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return fail(ncclInvalidArgument, std::string(kind_name(k)) + ": invalid communicator");
  if (c->shared == nullptr) return fail(ncclInvalidUsage, std::string(kind_name(k)) + ": communicator not initialized");
  Op o;
  o.kind = k;
  o.comm = c;
  o.send = send;
  o.recv = recv;
  o.count = count;
  o.type = type;
  o.red = red;
  o.root = root;
  o.peer = peer;
  o.stream = stream;
  return enqueue(o);
}

}  // namespace

extern "C" {

ncclResult_t ncclGetVersion(int* version) {
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  static int serial = 0;
  std::memset(id, 0, sizeof *id);
  const long stamp[3] = {static_cast<long>(getpid()), static_cast<long>(ncclstub::now_ms() * 1000), ++serial};
  std::memcpy(id->internal, stamp, sizeof stamp);
  return ncclSuccess;
}

const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}

const char* ncclGetLastError(ncclComm_t) { return last_error.c_str(); }

ncclResult_t ncclGroupStart() {
  ++depth;
  return ncclSuccess;
}

ncclResult_t ncclGroupEnd() {
  if (depth == 0) return fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  return --depth == 0 ? flush() : ncclSuccess;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t* config) {
  if (nranks < 1 || rank < 0 || rank >= nranks) return fail(ncclInvalidArgument, "init: rank out of range");
  Op o;
  o.kind = Kind::Init;
  o.out = comm;
  o.nranks = nranks;
  o.rank = rank;
  o.id = id;
  o.blocking = effective_blocking(config);
  // NCCL allocates the communicator and writes *comm during the call; the group end initializes it.
  o.comm = new StubComm;
  o.comm->rank = rank;
  o.comm->nranks = nranks;
  o.comm->device = state().device;  // the current device at the call is the communicator's
  *comm = reinterpret_cast<ncclComm_t>(o.comm);
  return enqueue(o);
}

ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  return ncclCommInitRankConfig(comm, nranks, id, rank, nullptr);
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return fail(ncclInvalidArgument, "split: invalid communicator");
  Op o;
  o.kind = Kind::Split;
  o.comm = c;
  o.color = color;
  o.key = key;
  o.out = newcomm;
  o.blocking = config != nullptr ? effective_blocking(config) : c->blocking;
  *newcomm = nullptr;
  return enqueue(o);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* state) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return fail(ncclInvalidArgument, "async error: invalid communicator");
  if (c->pending_polls > 0) {
    --c->pending_polls;
    *state = ncclInProgress;
  } else {
    *state = c->async;
  }
  return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int* n) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return ncclInvalidArgument;
  *n = c->nranks;
  return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return ncclInvalidArgument;
  *rank = c->rank;
  return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return ncclInvalidArgument;
  *device = c->device;
  return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return fail(ncclInvalidArgument, "finalize: invalid communicator");
  // NCCLSTUB_HANG_FINALIZE=P: process P never returns from finalize (a peer stuck in teardown).
  if (ncclstub::env_int("NCCLSTUB_HANG_FINALIZE", -1) == ncclstub::process_index())
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  Op o;
  o.kind = Kind::Finalize;
  o.comm = c;
  return enqueue(o);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  StubComm* c = as_stub(comm);
  if (c == nullptr) return ncclInvalidArgument;
  c->magic = 0;
  delete c;
  return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm) { return ncclCommDestroy(comm); }

ncclResult_t ncclAllReduce(const void* s, void* r, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t st) {
  return call(Kind::AllReduce, s, r, count, t, op, -1, -1, comm, st);
}
ncclResult_t ncclReduce(const void* s, void* r, size_t count, ncclDataType_t t, ncclRedOp_t op, int root,
                        ncclComm_t comm, cudaStream_t st) {
  return call(Kind::Reduce, s, r, count, t, op, root, -1, comm, st);
}
ncclResult_t ncclBroadcast(const void* s, void* r, size_t count, ncclDataType_t t, int root, ncclComm_t comm,
                           cudaStream_t st) {
  return call(Kind::Broadcast, s, r, count, t, ncclSum, root, -1, comm, st);
}
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st) {
  return ncclBroadcast(buff, buff, count, t, root, comm, st);
}
ncclResult_t ncclReduceScatter(const void* s, void* r, size_t count, ncclDataType_t t, ncclRedOp_t op,
                               ncclComm_t comm, cudaStream_t st) {
  return call(Kind::ReduceScatter, s, r, count, t, op, -1, -1, comm, st);
}
ncclResult_t ncclAllGather(const void* s, void* r, size_t count, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  return call(Kind::AllGather, s, r, count, t, ncclSum, -1, -1, comm, st);
}
ncclResult_t ncclAlltoAll(const void* s, void* r, size_t count, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  return call(Kind::AlltoAll, s, r, count, t, ncclSum, -1, -1, comm, st);
}
ncclResult_t ncclSend(const void* s, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return call(Kind::Send, s, nullptr, count, t, ncclSum, -1, peer, comm, st);
}
ncclResult_t ncclRecv(void* r, size_t count, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return call(Kind::Recv, nullptr, r, count, t, ncclSum, -1, peer, comm, st);
}

}  // extern "C"
