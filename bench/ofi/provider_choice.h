// Which libfabric provider `collbench fabric` uses: pure decisions over the provider names that
// fi_getinfo offered on this host, so they are tested without libfabric.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace collbench::ofi {

// "tcp" for "tcp;ofi_rxm": the core provider under any utility layers.
std::string core_provider(std::string_view prov_name);

// Providers that carry traffic over the kernel's IP stack: on an EFA instance, landing on one of
// these is a TCP fallback.
bool is_ip_provider(std::string_view core);

// Providers that only reach processes on the same host.
bool is_host_local(std::string_view core);

struct ProviderChoice {
  std::string core;    // what to ask fi_getinfo for (fabric_attr->prov_name)
  std::string reason;  // one line for the header: how the choice was made
  bool fell_back = false;  // auto found no efa
};

// `requested`: "auto" or a provider name, core ("tcp") or full ("tcp;ofi_rxm").
// `rdm`: the prov_names fi_getinfo returned for FI_EP_RDM with tagged or msg capabilities, in
// libfabric's order of preference; `all`: the prov_names it returned without hints.
// auto: efa when offered, else the first RDM provider that can leave the host (shm is left out).
// Throws UsageError for an unknown name (listing the RDM providers) or a provider that offers no
// RDM endpoint; RunError when auto finds nothing usable.
ProviderChoice choose_provider(const std::string& requested, const std::vector<std::string>& rdm,
                               const std::vector<std::string>& all);

// Throws UsageError when the largest message exceeds the provider's max_msg_size.
void check_message_size(std::uint64_t max_bytes, std::uint64_t max_msg_size, const std::string& provider);

}  // namespace collbench::ofi
