#include "bench/ofi/ofi_check.h"

#include <fmt/format.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

namespace collbench::ofi {

void ofi_fail(const char* call, long ret, const Who& who, const std::source_location& at) {
  const std::string name(call, std::string_view(call).find('('));
  throw RunError(fmt::format("{} failed: {} ({}) on rank {} (host {}){}", name,
                             fi_strerror(static_cast<int>(-ret)), ret, who.rank, who.host, call_site(at)));
}

}  // namespace collbench::ofi
