// libfabric, opened on first use instead of when collbench starts. Debian's libfabric1 links
// libpsm2 and libinfinipath, whose constructors each time the CPU clock against gettimeofday for at
// least 100 ms: every process that loads them starts 0.2 s late, `collbench --help` and every rank
// of every mpirun included. Only `fabric`, preflight's fabric phase and the environment audit use it.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <string>

namespace collbench::ofi {

// The entry points collbench calls (fi_allocinfo() is dupinfo(nullptr)). The rest of libfabric's
// calls are inline, through the objects these return.
struct Libfabric {
  decltype(&::fi_getinfo) getinfo = nullptr;
  decltype(&::fi_freeinfo) freeinfo = nullptr;
  decltype(&::fi_dupinfo) dupinfo = nullptr;
  decltype(&::fi_fabric) fabric = nullptr;
  decltype(&::fi_version) version = nullptr;
  decltype(&::fi_strerror) strerror = nullptr;
};

// Loaded once, on the first call; throws RunError naming the library and the loader's error when
// it cannot be loaded.
const Libfabric& libfabric();

}  // namespace collbench::ofi
