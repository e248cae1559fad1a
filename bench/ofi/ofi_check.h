// The libfabric error check: names the call, fi_strerror's text, the rank and the host.
#pragma once

#include "bench/call_site.h"

#include <string>

#include "bench/errors.h"

namespace collbench::ofi {

// The process a libfabric object belongs to, for error messages.
struct Who {
  int rank = 0;
  std::string host;
};

[[noreturn]] void ofi_fail(const char* call, long ret, const Who& who,
                           const std::source_location& at = std::source_location::current());

inline void ofi_check(long ret, const char* call, const Who& who,
                      const std::source_location& at = std::source_location::current()) {
  if (ret < 0) ofi_fail(call, ret, who, at);
}

// A peer that stopped answering: no completion within the timeout.
struct PeerTimeout : RunError {
  PeerTimeout(int peer_rank, std::string what)
      : RunError("peer did not answer: " + what), peer(peer_rank), phase(std::move(what)) {}
  int peer;
  std::string phase;  // "latency ping-pong at 8 B", ...
};

}  // namespace collbench::ofi

#define OFI_CHECK(who, call) ::collbench::ofi::ofi_check((call), #call, (who))
