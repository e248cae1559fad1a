// What fi_getinfo offers on this host: provider names for the choice (provider_choice.h), and the
// fi_info the endpoint is opened from.
#pragma once

#include <rdma/fabric.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/ofi/ofi_check.h"

namespace collbench::ofi {

struct InfoFree {
  void operator()(fi_info* i) const { fi_freeinfo(i); }
};
using InfoPtr = std::unique_ptr<fi_info, InfoFree>;

// The API version collbench asks for: the headers it was built with.
inline constexpr std::uint32_t kApiVersion = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);

// prov_names offered for RDM endpoints with tagged messages or plain messages, in libfabric's order.
std::vector<std::string> rdm_provider_names();
// prov_names offered for any endpoint type.
std::vector<std::string> all_provider_names();

// An fi_info of the core provider `core` for an RDM endpoint (tagged preferred, msg otherwise),
// duplicated so it outlives the list. With `off_host`, domains bound to the loopback interface
// are skipped (a tcp endpoint on lo cannot reach other nodes). When several domains remain (EFA
// instances have one per NIC), local rank i takes domain i modulo their number. Null when none.
InfoPtr pick_info(const std::string& core, bool off_host, int local_rank, const Who& who);

// "1.17" from fi_version().
std::string libfabric_version();

}  // namespace collbench::ofi
