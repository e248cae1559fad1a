// One RDM endpoint through libfabric: fabric, domain, completion queue, address vector, endpoint,
// and the two buffers it sends from and receives into (registered when the provider asks for
// local registration). Everything is released in reverse order by the destructor.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/ofi/offers.h"
#include "bench/ofi/ofi_check.h"
#include "bench/ofi/polling.h"

namespace collbench::ofi {

// What the header and the JSON report about the endpoint.
struct EndpointFacts {
  std::string provider, fabric, domain;
  bool tagged = true;  // FI_TAGGED; else FI_MSG
  bool mr_local = false;
  std::uint64_t max_msg_size = 0;
  std::uint64_t inject_size = 0;
};

EndpointFacts facts_of(const fi_info& info);

class RdmEndpoint {
 public:
  using Clock = std::chrono::steady_clock;

  // `buffer_bytes`: the largest message; `depth`: the most operations outstanding at once.
  RdmEndpoint(InfoPtr info, std::size_t buffer_bytes, std::size_t depth, Who who, Polling polling = Polling::Yield);
  ~RdmEndpoint();
  RdmEndpoint(const RdmEndpoint&) = delete;
  RdmEndpoint& operator=(const RdmEndpoint&) = delete;

  const EndpointFacts& facts() const { return facts_; }
  std::vector<char> name() const;
  // Every rank's endpoint name, by rank; afterwards peers are addressed by their rank.
  void insert_peers(const std::vector<std::vector<char>>& names);

  // Post one send to `peer` / one receive, progressing the queue while the provider says EAGAIN.
  // Past `deadline` they return false. A send that fits the provider's inject size goes out with
  // fi_tinject/fi_inject: the buffer is free at once and no completion is written, so it counts as
  // done when posted (the same path fi_pingpong takes for small messages).
  bool post_send(int peer, std::size_t bytes, std::uint64_t tag, Clock::time_point deadline);
  bool post_recv(std::size_t bytes, std::uint64_t tag, Clock::time_point deadline);

  // Progress until `sends` sends and `recvs` receives have completed since the endpoint was made;
  // false past `deadline`.
  bool wait(std::uint64_t sends, std::uint64_t recvs, Clock::time_point deadline);

  // The first byte of the messages sent from now on / of the message last received: how the side
  // that decides when a measurement ends tells the other (bench/ofi/traffic.cpp). Messages of
  // 0 bytes carry none.
  void set_mark(char c) { send_buf_[0] = c; }
  char received_mark() const { return recv_buf_[0]; }

  std::uint64_t sends_posted() const { return sends_posted_; }
  std::uint64_t recvs_posted() const { return recvs_posted_; }
  std::uint64_t sends_done() const { return sends_done_; }
  std::uint64_t recvs_done() const { return recvs_done_; }

 private:
  void release();
  // Reads completions once; with Polling::Yield an empty read yields the core.
  void progress();
  void* send_context();
  void* recv_context();

  InfoPtr info_;
  Who who_;
  EndpointFacts facts_;
  Polling polling_;
  fid_fabric* fabric_ = nullptr;
  fid_domain* domain_ = nullptr;
  fid_cq* cq_ = nullptr;
  fid_av* av_ = nullptr;
  fid_ep* ep_ = nullptr;
  fid_mr* send_mr_ = nullptr;
  fid_mr* recv_mr_ = nullptr;
  void* send_desc_ = nullptr;
  void* recv_desc_ = nullptr;
  std::vector<char> send_buf_, recv_buf_;
  // One context per outstanding operation (FI_CONTEXT/FI_CONTEXT2 modes), in two rings: a
  // completion's context says whether it was a send or a receive.
  std::vector<fi_context2> send_ctx_, recv_ctx_;
  std::uint64_t sends_posted_ = 0, recvs_posted_ = 0, sends_done_ = 0, recvs_done_ = 0;
  std::vector<fi_addr_t> peers_;
};

}  // namespace collbench::ofi
