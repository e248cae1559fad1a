#include "bench/ofi/provider_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "bench/errors.h"
#include "bench/sizes.h"

namespace collbench::ofi {
namespace {

// Distinct core names, in first-seen order.
std::vector<std::string> cores(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    const std::string c = core_provider(n);
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

std::string list(const std::vector<std::string>& names) {
  if (names.empty()) return "none";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::string core_provider(std::string_view prov_name) {
  return std::string(prov_name.substr(0, prov_name.find(';')));
}

bool is_ip_provider(std::string_view core) {
  return core == "tcp" || core == "sockets" || core == "udp" || core == "net";
}

bool is_host_local(std::string_view core) { return core == "shm" || core == "sm2"; }

ProviderChoice choose_provider(const std::string& requested, const std::vector<std::string>& rdm,
                               const std::vector<std::string>& all) {
  const std::vector<std::string> rdm_cores = cores(rdm);
  if (requested == "auto") {
    if (std::find(rdm_cores.begin(), rdm_cores.end(), "efa") != rdm_cores.end())
      return {"efa", "auto: efa offered", false};
    for (const auto& c : rdm_cores)
      if (!is_host_local(c))
        return {c,
                fmt::format("auto: no efa provider on this host; fell back to {}, libfabric's first RDM provider "
                            "that can leave the host (offered: {})",
                            c, list(rdm_cores)),
                true};
    throw RunError(fmt::format("--provider auto: no libfabric provider offers an RDM endpoint that can reach other "
                               "hosts (offered: {}); install the EFA software or libfabric's tcp provider",
                               list(rdm_cores)));
  }
  const std::string core = core_provider(requested);
  auto matches = [&](const std::string& name) { return name == requested || core_provider(name) == core; };
  if (std::any_of(rdm.begin(), rdm.end(), matches)) return {core, fmt::format("--provider {}", requested), false};
  if (std::any_of(all.begin(), all.end(), matches))
    throw UsageError(fmt::format("--provider {}: this provider offers no RDM endpoint (FI_EP_RDM with FI_TAGGED or "
                                 "FI_MSG) here; providers with RDM: {} (check FI_PROVIDER, which can hide the "
                                 "ofi_rxm/ofi_rxd layers that give tcp and udp their RDM endpoints)",
                                 requested, list(rdm_cores)));
  throw UsageError(fmt::format("--provider {}: unknown or unavailable on this host; providers with RDM endpoints "
                               "here: {} (or auto)",
                               requested, list(rdm_cores)));
}

void check_message_size(std::uint64_t max_bytes, std::uint64_t max_msg_size, const std::string& provider) {
  if (max_bytes > max_msg_size)
    throw UsageError(fmt::format("-e {}: larger than the largest message provider {} accepts ({}); use -e {} "
                                 "or less",
                                 size_text(max_bytes), provider, size_text(max_msg_size), max_msg_size));
}

}  // namespace collbench::ofi
