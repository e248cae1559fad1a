#include "bench/ofi/offers.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include <algorithm>

namespace collbench::ofi {
namespace {

// Hints for an RDM endpoint with `caps`; the modes collbench honours (a context per operation,
// local registration of its buffers) are declared so providers that need them are offered too.
InfoPtr rdm_hints(std::uint64_t caps, const std::string& core) {
  InfoPtr h(fi_allocinfo());
  if (!h) throw RunError("fi_allocinfo failed: out of memory");
  h->caps = caps;
  h->mode = FI_CONTEXT | FI_CONTEXT2;
  h->ep_attr->type = FI_EP_RDM;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  if (!core.empty()) h->fabric_attr->prov_name = strdup(core.c_str());  // freed by fi_freeinfo
  return h;
}

InfoPtr getinfo(const fi_info* hints) {
  fi_info* list = nullptr;
  const int ret = fi_getinfo(kApiVersion, nullptr, nullptr, 0, const_cast<fi_info*>(hints), &list);
  if (ret != 0) return nullptr;  // -FI_ENODATA: nothing matches
  return InfoPtr(list);
}

void add_names(const fi_info* list, std::vector<std::string>& out) {
  for (const fi_info* i = list; i; i = i->next)
    if (i->fabric_attr && i->fabric_attr->prov_name) {
      const std::string n = i->fabric_attr->prov_name;
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
}

bool on_loopback(const fi_info& i) {
  if (i.domain_attr && i.domain_attr->name && std::string_view(i.domain_attr->name) == "lo") return true;
  if (!i.src_addr) return false;
  if (i.addr_format == FI_SOCKADDR_IN) {
    const auto* a = static_cast<const sockaddr_in*>(i.src_addr);
    return (ntohl(a->sin_addr.s_addr) >> 24) == 127;
  }
  if (i.addr_format == FI_SOCKADDR_IN6) {
    const auto* a = static_cast<const sockaddr_in6*>(i.src_addr);
    return IN6_IS_ADDR_LOOPBACK(&a->sin6_addr);
  }
  return false;
}

}  // namespace

std::vector<std::string> rdm_provider_names() {
  std::vector<std::string> out;
  for (std::uint64_t caps : {FI_TAGGED, FI_MSG}) {
    const InfoPtr h = rdm_hints(caps, "");
    const InfoPtr list = getinfo(h.get());
    add_names(list.get(), out);
  }
  return out;
}

std::vector<std::string> all_provider_names() {
  std::vector<std::string> out;
  const InfoPtr list = getinfo(nullptr);
  add_names(list.get(), out);
  return out;
}

InfoPtr pick_info(const std::string& core, bool off_host, int local_rank, const Who& who) {
  for (std::uint64_t caps : {FI_TAGGED, FI_MSG}) {
    const InfoPtr h = rdm_hints(caps, core);
    const InfoPtr list = getinfo(h.get());
    std::vector<const fi_info*> fit;
    for (const fi_info* i = list.get(); i; i = i->next)
      if (!off_host || !on_loopback(*i)) fit.push_back(i);
    if (fit.empty()) continue;
    // IPv4 where both are offered (fi_pingpong's default too); IPv6 only when nothing else is.
    std::vector<const fi_info*> v4;
    for (const fi_info* i : fit)
      if (i->addr_format != FI_SOCKADDR_IN6) v4.push_back(i);
    const auto& from = v4.empty() ? fit : v4;
    InfoPtr chosen(fi_dupinfo(from[static_cast<std::size_t>(local_rank) % from.size()]));
    if (!chosen) ofi_fail("fi_dupinfo", -FI_ENOMEM, who);
    return chosen;
  }
  return nullptr;
}

std::string libfabric_version() {
  const std::uint32_t v = fi_version();
  return fmt::format("{}.{}", FI_MAJOR(v), FI_MINOR(v));
}

}  // namespace collbench::ofi
