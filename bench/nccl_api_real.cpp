// The lifecycle's seam, forwarded to libnccl.
#include <nccl.h>

#include <cstring>
#include <memory>

#include "bench/nccl_api.h"
#include "bench/nccl_backend.h"

namespace collbench::nccl {
namespace {

static_assert(kSuccess == ncclSuccess && kRemoteError == ncclRemoteError && kInProgress == ncclInProgress);
static_assert(sizeof(UniqueId::bytes) == sizeof(ncclUniqueId));

ncclComm_t as_nccl(Comm c) { return static_cast<ncclComm_t>(c); }

ncclConfig_t config_for(bool blocking) {
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = blocking ? 1 : 0;
  return config;
}

class RealApi final : public Api {
 public:
  int group_start() override { return ncclGroupStart(); }
  int group_end() override { return ncclGroupEnd(); }
  int init_rank(Comm* comm, int nranks, const UniqueId& id, int rank, bool blocking) override {
    ncclUniqueId nid;
    std::memcpy(&nid, id.bytes.data(), sizeof nid);
    ncclConfig_t config = config_for(blocking);
    ncclComm_t c = nullptr;
    const ncclResult_t r = ncclCommInitRankConfig(&c, nranks, nid, rank, &config);
    *comm = c;
    return r;
  }
  int split(Comm parent, int color, int key, Comm* child, bool blocking) override {
    ncclConfig_t config = config_for(blocking);
    // NCCL writes the child through this pointer, later when the parent is non-blocking.
    return ncclCommSplit(as_nccl(parent), color, key, reinterpret_cast<ncclComm_t*>(child), &config);
  }
  int async_error(Comm comm, int* state) override {
    ncclResult_t s = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(as_nccl(comm), &s);
    *state = s;
    return r;
  }
  int count(Comm comm, int* n) override { return ncclCommCount(as_nccl(comm), n); }
  int user_rank(Comm comm, int* rank) override { return ncclCommUserRank(as_nccl(comm), rank); }
  int finalize(Comm comm) override { return ncclCommFinalize(as_nccl(comm)); }
  int destroy(Comm comm) override { return ncclCommDestroy(as_nccl(comm)); }
  int abort(Comm comm) override { return ncclCommAbort(as_nccl(comm)); }
  std::string describe(int result, Comm comm) override {
    std::string text = ncclGetErrorString(static_cast<ncclResult_t>(result));
    const char* last = ncclGetLastError(as_nccl(comm));
    if (last != nullptr && *last != '\0') text += std::string(" (") + last + ")";
    return text;
  }
};

}  // namespace

Api& real_api() {
  static RealApi api;  // stateless: one is enough
  return api;
}

}  // namespace collbench::nccl
