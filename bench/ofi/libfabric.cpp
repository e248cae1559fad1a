#include "bench/ofi/libfabric.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include "bench/errors.h"

namespace collbench::ofi {

#if COLLBENCH_LIBFABRIC_LINKED

const Libfabric& libfabric() {
  static const Libfabric linked{&fi_getinfo, &fi_freeinfo, &fi_dupinfo, &fi_fabric, &fi_version, &fi_strerror};
  return linked;
}

#else
// COLLBENCH_LIBFABRIC_SONAME, COLLBENCH_LIBFABRIC_BUILT_WITH (the same in the folder of the library
// built against) and the symbol versions a link against it binds (COLLBENCH_FI_*_VERSION): from
// cmake/libfabric.cmake. Asked for by version, a newer libfabric gives the functions a link would
// have had, not its newer defaults, whose structures may be laid out anew.
namespace {

template <typename F>
void bind(void* lib, F& to, const char* name, const char* version) {
  to = reinterpret_cast<F>(dlvsym(lib, name, version));
  if (!to)
    throw RunError(fmt::format("{} has no {}@{} ({}): collbench was built against another libfabric; rebuild it, or "
                               "put that one's folder first on LD_LIBRARY_PATH",
                               COLLBENCH_LIBFABRIC_SONAME, name, version, dlerror()));
}

Libfabric load() {
  // By name first (LD_LIBRARY_PATH and the loader's cache), as the linked library was found; then in
  // the folder of the one built against, which need not be on the loader's path (EFA: /opt/amazon/efa/lib).
  // RTLD_GLOBAL: providers libfabric loads from files look its symbols up.
  void* lib = dlopen(COLLBENCH_LIBFABRIC_SONAME, RTLD_NOW | RTLD_GLOBAL);
  if (!lib) lib = dlopen(COLLBENCH_LIBFABRIC_BUILT_WITH, RTLD_NOW | RTLD_GLOBAL);
  if (!lib)
    throw RunError(fmt::format("cannot load libfabric ({}): install it (Debian: apt-get install libfabric1; on EFA "
                               "instances, the EFA installer) or put its folder on LD_LIBRARY_PATH",
                               dlerror()));
  Libfabric f;
  bind(lib, f.getinfo, "fi_getinfo", COLLBENCH_FI_GETINFO_VERSION);
  bind(lib, f.freeinfo, "fi_freeinfo", COLLBENCH_FI_FREEINFO_VERSION);
  bind(lib, f.dupinfo, "fi_dupinfo", COLLBENCH_FI_DUPINFO_VERSION);
  bind(lib, f.fabric, "fi_fabric", COLLBENCH_FI_FABRIC_VERSION);
  bind(lib, f.version, "fi_version", COLLBENCH_FI_VERSION_VERSION);
  bind(lib, f.strerror, "fi_strerror", COLLBENCH_FI_STRERROR_VERSION);
  return f;  // loaded for the rest of the process
}

}  // namespace

const Libfabric& libfabric() {
  static const Libfabric loaded = load();
  return loaded;
}

#endif

}  // namespace collbench::ofi
