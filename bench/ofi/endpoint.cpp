#include "bench/ofi/endpoint.h"

#include <fmt/format.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <sched.h>

#include <algorithm>

namespace collbench::ofi {
namespace {

void close_fid(fid* f) {
  if (f) fi_close(f);
}

}  // namespace


EndpointFacts facts_of(const fi_info& info) {
  EndpointFacts f;
  if (info.fabric_attr) {
    if (info.fabric_attr->prov_name) f.provider = info.fabric_attr->prov_name;
    if (info.fabric_attr->name) f.fabric = info.fabric_attr->name;
  }
  if (info.domain_attr) {
    if (info.domain_attr->name) f.domain = info.domain_attr->name;
    f.mr_local = (info.domain_attr->mr_mode & FI_MR_LOCAL) != 0 || (info.mode & FI_LOCAL_MR) != 0;
  }
  f.tagged = (info.caps & FI_TAGGED) != 0;
  if (info.ep_attr) f.max_msg_size = info.ep_attr->max_msg_size;
  if (info.tx_attr) f.inject_size = info.tx_attr->inject_size;
  return f;
}

RdmEndpoint::RdmEndpoint(InfoPtr info, std::size_t buffer_bytes, std::size_t depth, Who who, Polling polling)
    : info_(std::move(info)), who_(std::move(who)), facts_(facts_of(*info_)), polling_(polling) {
  const std::size_t bytes = std::max<std::size_t>(buffer_bytes, 64);
  send_buf_.assign(bytes, 'c');
  recv_buf_.assign(bytes, 0);
  send_ctx_.resize(std::max<std::size_t>(depth, 1) * 2);
  recv_ctx_.resize(std::max<std::size_t>(depth, 1) * 2);
  try {
    OFI_CHECK(who_, fi_fabric(info_->fabric_attr, &fabric_, nullptr));
    OFI_CHECK(who_, fi_domain(fabric_, info_.get(), &domain_, nullptr));
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_CONTEXT;
    cq_attr.wait_obj = FI_WAIT_NONE;  // polled, as fi_pingpong does: no wake-up latency in the numbers
    cq_attr.size = std::max<std::size_t>(depth * 4, 64);
    OFI_CHECK(who_, fi_cq_open(domain_, &cq_attr, &cq_, nullptr));
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    OFI_CHECK(who_, fi_av_open(domain_, &av_attr, &av_, nullptr));
    OFI_CHECK(who_, fi_endpoint(domain_, info_.get(), &ep_, nullptr));
    OFI_CHECK(who_, fi_ep_bind(ep_, &cq_->fid, FI_TRANSMIT | FI_RECV));
    OFI_CHECK(who_, fi_ep_bind(ep_, &av_->fid, 0));
    OFI_CHECK(who_, fi_enable(ep_));
    if (facts_.mr_local) {
      // Keys only matter without FI_MR_PROV_KEY; two distinct ones for the two buffers.
      OFI_CHECK(who_, fi_mr_reg(domain_, send_buf_.data(), send_buf_.size(), FI_SEND, 0, 1, 0, &send_mr_, nullptr));
      OFI_CHECK(who_, fi_mr_reg(domain_, recv_buf_.data(), recv_buf_.size(), FI_RECV, 0, 2, 0, &recv_mr_, nullptr));
      send_desc_ = fi_mr_desc(send_mr_);
      recv_desc_ = fi_mr_desc(recv_mr_);
    }
  } catch (...) {
    release();
    throw;
  }
}

RdmEndpoint::~RdmEndpoint() { release(); }

void RdmEndpoint::release() {
  close_fid(ep_ ? &ep_->fid : nullptr);
  close_fid(send_mr_ ? &send_mr_->fid : nullptr);
  close_fid(recv_mr_ ? &recv_mr_->fid : nullptr);
  close_fid(av_ ? &av_->fid : nullptr);
  close_fid(cq_ ? &cq_->fid : nullptr);
  close_fid(domain_ ? &domain_->fid : nullptr);
  close_fid(fabric_ ? &fabric_->fid : nullptr);
  ep_ = nullptr, send_mr_ = recv_mr_ = nullptr, av_ = nullptr, cq_ = nullptr, domain_ = nullptr, fabric_ = nullptr;
}

std::vector<char> RdmEndpoint::name() const {
  std::size_t len = 0;
  const int probe = fi_getname(&ep_->fid, nullptr, &len);
  if (probe != -FI_ETOOSMALL && probe < 0) ofi_fail("fi_getname", probe, who_);
  std::vector<char> out(len);
  OFI_CHECK(who_, fi_getname(&ep_->fid, out.data(), &len));
  out.resize(len);
  return out;
}

void RdmEndpoint::insert_peers(const std::vector<std::vector<char>>& names) {
  peers_.assign(names.size(), FI_ADDR_UNSPEC);
  for (std::size_t r = 0; r < names.size(); ++r) {
    const int ret = fi_av_insert(av_, names[r].data(), 1, &peers_[r], 0, nullptr);
    if (ret != 1) ofi_fail("fi_av_insert", ret < 0 ? ret : -FI_EINVAL, who_);
  }
}

void* RdmEndpoint::send_context() { return &send_ctx_[sends_posted_ % send_ctx_.size()]; }
void* RdmEndpoint::recv_context() { return &recv_ctx_[recvs_posted_ % recv_ctx_.size()]; }

bool RdmEndpoint::post_send(int peer, std::size_t bytes, std::uint64_t tag, Clock::time_point deadline) {
  const fi_addr_t to = peers_.at(static_cast<std::size_t>(peer));
  const bool inject = bytes <= facts_.inject_size;
  for (;;) {
    ssize_t ret;
    if (inject)
      ret = facts_.tagged ? fi_tinject(ep_, send_buf_.data(), bytes, to, tag)
                          : fi_inject(ep_, send_buf_.data(), bytes, to);
    else
      ret = facts_.tagged ? fi_tsend(ep_, send_buf_.data(), bytes, send_desc_, to, tag, send_context())
                          : fi_send(ep_, send_buf_.data(), bytes, send_desc_, to, send_context());
    if (ret == 0) break;
    if (ret != -FI_EAGAIN)
      ofi_fail(inject ? (facts_.tagged ? "fi_tinject" : "fi_inject") : (facts_.tagged ? "fi_tsend" : "fi_send"), ret,
               who_);
    progress();
    if (Clock::now() > deadline) return false;
  }
  ++sends_posted_;
  if (inject) ++sends_done_;
  return true;
}

bool RdmEndpoint::post_recv(std::size_t bytes, std::uint64_t tag, Clock::time_point deadline) {
  for (;;) {
    const ssize_t ret = facts_.tagged
                            ? fi_trecv(ep_, recv_buf_.data(), bytes, recv_desc_, FI_ADDR_UNSPEC, tag, 0, recv_context())
                            : fi_recv(ep_, recv_buf_.data(), bytes, recv_desc_, FI_ADDR_UNSPEC, recv_context());
    if (ret == 0) break;
    if (ret != -FI_EAGAIN) ofi_fail(facts_.tagged ? "fi_trecv" : "fi_recv", ret, who_);
    progress();
    if (Clock::now() > deadline) return false;
  }
  ++recvs_posted_;
  return true;
}

void RdmEndpoint::progress() {
  fi_cq_entry entries[16];
  const ssize_t n = fi_cq_read(cq_, entries, 16);
  if (n > 0) {
    for (ssize_t i = 0; i < n; ++i) {
      const auto* ctx = static_cast<const fi_context2*>(entries[i].op_context);
      if (ctx >= send_ctx_.data() && ctx < send_ctx_.data() + send_ctx_.size()) ++sends_done_;
      else ++recvs_done_;
    }
    return;
  }
  if (n == -FI_EAVAIL) {
    fi_cq_err_entry err{};
    const ssize_t got = fi_cq_readerr(cq_, &err, 0);
    if (got < 0) ofi_fail("fi_cq_readerr", got, who_);
    throw RunError(fmt::format("fi_cq_read: a {} completed with an error: {} ({}; provider: {}) on rank {} (host {})",
                               err.op_context && static_cast<const fi_context2*>(err.op_context) >= send_ctx_.data() &&
                                       static_cast<const fi_context2*>(err.op_context) <
                                           send_ctx_.data() + send_ctx_.size()
                                   ? "send"
                                   : "receive",
                               fi_strerror(err.err), err.err,
                               fi_cq_strerror(cq_, err.prov_errno, err.err_data, nullptr, 0), who_.rank, who_.host));
  }
  if (n != -FI_EAGAIN) ofi_fail("fi_cq_read", n, who_);
  // Nothing yet. A yield is a system call on every empty poll: cheap, but at a few microseconds
  // per message it showed in the latency, hence Spin where the cores allow.
  if (polling_ == Polling::Yield) sched_yield();
}

bool RdmEndpoint::wait(std::uint64_t sends, std::uint64_t recvs, Clock::time_point deadline) {
  unsigned polls = 0;
  while (sends_done_ < sends || recvs_done_ < recvs) {
    progress();
    // The clock is cheap, but not free at sub-microsecond completion rates.
    if ((++polls & 63) == 0 && Clock::now() > deadline) return false;
  }
  return true;
}

}  // namespace collbench::ofi
