#include "transport/ib/ib_link.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>

#include "base/deadline.h"
#include "base/log.h"
#include "transport/ib/device_memory.h"
#include "transport/ib/gpudirect.h"
#include "transport/ib/wc_status.h"
#include "weft/error.h"

namespace weft::transport::ib {
namespace {

using transport::FrameHeader;

// How long abandon() waits for writes from the caller's memory to complete.
constexpr auto kWriteWait = std::chrono::seconds(30);
// The access a receive target is registered with.
constexpr int kTargetAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
// The most one RDMA WRITE carries, whatever IbLinkOptions::write_bytes asks: a
// scatter/gather entry's length is 32 bits, and no adapter's max_msg_sz (which lowers
// it further, below) is more than 2 GiB. A payload of any 64-bit length goes in chunks
// of at most this.
constexpr uint64_t kMaxSge = uint64_t{1} << 31;
static_assert(kMaxSge <= std::numeric_limits<decltype(ibv_sge::length)>::max());

std::string errno_text(int error) { return error != 0 ? std::strerror(error) : "no reason given"; }

}  // namespace

IbLink::IbLink(int peer, base::Fd socket, transport::LinkHandler& handler,
               std::unique_ptr<IbEndpoint> endpoint, IbLinkOptions options)
    : peer_(peer),
      socket_(std::move(socket)),
      handler_(handler),
      endpoint_(std::move(endpoint)),
      context_(endpoint_->context()),
      api_(context_.api()),
      options_(options),
      credits_(endpoint_->options().receives, endpoint_->remote().receives) {
  // Once per process, with the first link: how device memory would reach the adapter
  // (its INFO line; docs/ARCHITECTURE.md, "Verbs"). First, so that a malformed
  // WEFT_IB_GPUDIRECT throws before the link has attached anything.
  device_path_ = process_gpudirect_choice(api_).path;
  base::set_nonblocking(socket_.get(), true);
  base::set_nodelay(socket_.get());
  eager_bytes_ =
      std::min<uint64_t>(endpoint_->options().buffer_bytes, endpoint_->remote().buffer_bytes);
  write_bytes_ = std::min(options_.write_bytes, kMaxSge);
  if (context_.address().max_message > 0) {
    write_bytes_ = std::min(write_bytes_, context_.address().max_message);
  }
  options_.piece_bytes = std::max<uint64_t>(options_.piece_bytes, 1);
  write_bytes_ = std::max<uint64_t>(write_bytes_, 1);
  const uint32_t buffers = endpoint_->options().receives;
  free_buffers_.reserve(buffers);
  for (uint32_t i = buffers; i > 0; --i) free_buffers_.push_back(i - 1);
  const uint32_t sends = IbEndpoint::send_queue_depth(endpoint_->options());
  mailbox_.sends.reserve(sends);
  mailbox_.receives.reserve(buffers);
  work_sends_.reserve(sends);
  work_receives_.reserve(buffers);
  qpn_ = endpoint_->qp()->qp_num;
  context_.attach(qpn_, &mailbox_);
  const PortAddress& port = context_.address();
  description_ = "ib " + port.name() + " qpn " + std::to_string(qpn_) + " -> qpn " +
                 std::to_string(endpoint_->remote().qpn) + " (" + port.addressing() + ", mtu " +
                 std::to_string(mtu_bytes(endpoint_->path_mtu())) + ")";
}

IbLink::~IbLink() {
  stop_after_failure();
  context_.detach(qpn_);
}

std::string IbLink::where() const {
  return "verbs link to rank " + std::to_string(peer_) + " (" + context_.address().name() +
         ", qpn " + std::to_string(qpn_) + " -> " + std::to_string(endpoint_->remote().qpn) + ")";
}

// ---------------------------------------------------------------------------------------
// Sending

bool IbLink::send(const FrameHeader& header, const void* payload, void* cookie) {
  refuse_if_failed();
  if (queue_.empty() && !in_flush_ && may_post_frame()) {
    if (fits_eager(header.payload_bytes)) {
      post_frame(header, payload);
      return !failed();
    }
    if (!out_) {
      // Announced at once, not queued: the frame waits for its CTS in the transfer.
      transport::SendQueue::Frame f{
          header, static_cast<const std::byte*>(payload), {}, cookie, cookie, 0};
      if (cookie == nullptr) f.own_payload();
      start_outgoing(std::move(f));
      return false;
    }
  }
  queue_.push_frame(header, payload, cookie);
  flush();
  return false;
}

void IbLink::send_stream(const FrameHeader& header, const void* data, uint64_t bytes,
                         void* cookie) {
  refuse_if_failed();
  queue_.push_stream(header, data, bytes, cookie);
  flush();
}

void IbLink::send_stream_by_rdma(const FrameHeader& header, const void* data, uint64_t bytes,
                                 void* cookie, int device) {
  refuse_if_failed();
  queue_.push_rdma_stream(header, data, bytes, cookie, device);
  flush();
}

void IbLink::flush() {
  if (in_flush_ || failed()) return;
  in_flush_ = true;
  std::vector<void*> sent;
  send_pending_cts();
  post_writes();
  while (!failed() && !pending_cts_) {
    uint64_t payload = 0;
    bool by_rdma = false;
    if (queue_.has_control()) {
      payload = queue_.control().front().header.payload_bytes;
    } else if (const transport::SendQueue::Stream* s = queue_.first_stream()) {
      // A stream's pieces go one after the other: the last one reports the stream
      // sent, which must wait for the writes of the one before.
      if (out_) break;
      payload = std::min(options_.piece_bytes, s->bytes - s->next_offset);
      by_rdma = s->by_rdma;
    } else {
      break;
    }
    if (!credits_.may_send() || free_buffers_.empty()) break;
    if (fits_eager(payload) && !by_rdma) {
      transport::SendQueue::Frame f;
      queue_.take_next(f, options_.piece_bytes);
      post_frame(f.header, f.payload);
      if (f.cookie != nullptr) sent.push_back(f.cookie);
    } else {
      if (out_) break;  // one transfer at a time: its writes are still completing
      transport::SendQueue::Frame f;
      queue_.take_next(f, options_.piece_bytes);
      start_outgoing(std::move(f));
    }
  }
  return_credit_if_owed();
  in_flush_ = false;
  for (void* cookie : sent) handler_.on_sent(peer_, cookie);
}

bool IbLink::post_buffer(uint32_t index, uint32_t bytes) {
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(endpoint_->send_buffer(index));
  sge.length = bytes;
  sge.lkey = endpoint_->buffers_lkey();
  ibv_send_wr wr{};
  wr.wr_id = send_wr_id(SendWork::kBuffer, index);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  ibv_send_wr* bad = nullptr;
  if (const int rc = api_.post_send(endpoint_->qp(), &wr, &bad); rc != 0) {
    free_buffers_.push_back(index);
    fail(where() + ": ibv_post_send of a SEND failed: " + errno_text(rc));
    return false;
  }
  credits_.use();
  if (sends_outstanding_++ == 0) note_send_progress();
  ring_if_peer_sleeps();
  return true;
}

void IbLink::post_frame(const FrameHeader& header, const void* payload) {
  const uint32_t index = free_buffers_.back();
  free_buffers_.pop_back();
  std::byte* buffer = endpoint_->send_buffer(index);
  const IbWireHeader w = wire_header(WireKind::kFrame);
  std::memcpy(buffer, &w, sizeof w);
  std::memcpy(buffer + sizeof w, &header, sizeof header);
  if (header.payload_bytes > 0) {
    std::memcpy(buffer + kFrameOverhead, payload, header.payload_bytes);
  }
  post_buffer(index, static_cast<uint32_t>(kFrameOverhead + header.payload_bytes));
}

void IbLink::start_outgoing(transport::SendQueue::Frame frame) {
  Outgoing& o = out_.emplace();
  o.frame = std::move(frame);
  o.id = ++next_transfer_;
  const uint32_t index = free_buffers_.back();
  free_buffers_.pop_back();
  std::byte* buffer = endpoint_->send_buffer(index);
  const IbWireHeader w = wire_header(WireKind::kRts, o.id);
  std::memcpy(buffer, &w, sizeof w);
  std::memcpy(buffer + sizeof w, &o.frame.header, sizeof o.frame.header);
  post_buffer(index, static_cast<uint32_t>(kFrameOverhead));
}

void IbLink::post_writes() {
  if (!out_ || !out_->granted || out_->last_posted || failed()) return;
  Outgoing& o = *out_;
  const uint64_t total = o.frame.header.payload_bytes;
  if (!o.source) {
    std::string why;
    o.source = register_source(o.frame, &why);
    if (!o.source) {
      fail(where() + ": cannot register the " + std::to_string(total) +
           "-byte payload to write: " + why);
      return;
    }
  }
  const uint32_t most = endpoint_->options().writes_in_flight;
  while (o.posted < total && o.writes_outstanding < most) {
    const uint64_t bytes = std::min(write_bytes_, total - o.posted);
    const bool last = o.posted + bytes == total;
    if (last && !credits_.may_send()) return;  // the immediate takes a receive
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(o.frame.payload + o.posted);
    sge.length = static_cast<uint32_t>(bytes);
    sge.lkey = o.source.lkey();
    ibv_send_wr wr{};
    wr.wr_id = send_wr_id(SendWork::kWrite, o.id);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = last ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = o.id;
    wr.wr.rdma.remote_addr = o.remote_address + o.posted;
    wr.wr.rdma.rkey = o.rkey;
    ibv_send_wr* bad = nullptr;
    if (const int rc = api_.post_send(endpoint_->qp(), &wr, &bad); rc != 0) {
      fail(where() + ": ibv_post_send of an RDMA WRITE failed: " + errno_text(rc));
      return;
    }
    o.posted += bytes;
    ++o.writes_outstanding;
    if (sends_outstanding_++ == 0) note_send_progress();
    if (last) {
      credits_.use();
      o.last_posted = true;
      ring_if_peer_sleeps();
    }
  }
}

Registration IbLink::register_source(const transport::SendQueue::Frame& frame, std::string* why) {
  const uint64_t bytes = frame.header.payload_bytes;
  if (frame.device >= 0) [[unlikely]] {
    return context_.registrations().acquire_device(device_path_, frame.payload, bytes, frame.device,
                                                   0, why);
  }
  return context_.registrations().acquire(frame.payload, bytes, 0, why);
}

void IbLink::finish_outgoing() {
  void* cookie = out_->frame.cookie;
  context_.registrations().release(out_->source);
  out_.reset();
  if (cookie != nullptr) handler_.on_sent(peer_, cookie);
}

void IbLink::send_pending_cts() {
  if (!pending_cts_ || !credits_.may_send() || free_buffers_.empty() || failed()) return;
  const uint32_t index = free_buffers_.back();
  free_buffers_.pop_back();
  std::byte* buffer = endpoint_->send_buffer(index);
  const IbWireHeader w = wire_header(WireKind::kCts, pending_cts_->id, pending_cts_->flags);
  std::memcpy(buffer, &w, sizeof w);
  std::memcpy(buffer + sizeof w, &pending_cts_->body, sizeof pending_cts_->body);
  pending_cts_.reset();
  post_buffer(index, sizeof(IbWireHeader) + sizeof(CtsBody));
}

void IbLink::return_credit_if_owed() {
  if (failed() || !credits_.should_return() || !credits_.may_send_credit() ||
      free_buffers_.empty()) {
    return;
  }
  const uint32_t index = free_buffers_.back();
  free_buffers_.pop_back();
  const IbWireHeader w = wire_header(WireKind::kCredit);
  std::memcpy(endpoint_->send_buffer(index), &w, sizeof w);
  post_buffer(index, sizeof w);
}

bool IbLink::abandon(void* cookie) {
  bool dropped = queue_.abandon(cookie);
  if (cookie == nullptr || !out_ || out_->frame.owner != cookie) return dropped;
  // The transfer under way is finished from a private copy, as a frame already started
  // must be. Whatever happens from here, its cookie is not reported.
  const uint32_t id = out_->id;
  out_->frame.cookie = nullptr;
  // The adapter may be reading the caller's memory for the writes posted already.
  wait_for_writes(id);
  if (out_ && out_->id == id) {
    transport::SendQueue::Frame& f = out_->frame;
    if (f.device >= 0 && f.header.payload_bytes > 0) [[unlikely]] {
      // Device memory: copied by the device layer, never by the CPU.
      DeviceMemory* memory = installed_device_memory();
      f.owned.resize(f.header.payload_bytes);
      try {
        if (memory == nullptr) throw Error(ErrorCode::kInternal, "no device layer");
        memory->copy_to_host(f.owned.data(), f.payload, f.header.payload_bytes, f.device);
      } catch (const Error& e) {
        fail(where() + ": cannot copy an abandoned device message aside: " + e.what());
        stop_after_failure();
        return dropped;
      }
      f.payload = f.owned.data();
      f.device = -1;
    }
    f.own_payload();
    context_.registrations().release(out_->source);  // registered again from the copy
  }
  return dropped;
}

void IbLink::wait_for_writes(uint32_t id) {
  if (in_sends_) return;  // cannot happen: no upcall of handle_sends abandons
  const base::Deadline deadline = base::Deadline::after(kWriteWait);
  while (!failed() && out_ && out_->id == id && out_->writes_outstanding > 0) {
    if (!poll_completions()) break;
    handle_sends();
    watch_completions();
    if (deadline.expired()) {
      fail(where() + ": the RDMA WRITEs of an abandoned message did not complete within " +
           std::to_string(kWriteWait.count()) + " s");
      stop_after_failure();
    }
  }
}

// ---------------------------------------------------------------------------------------
// Progress: completions

bool IbLink::poll_completions() {
  if (!context_.poll()) {
    fail(where() + ": " + context_.failure());
    return false;
  }
  return true;
}

void IbLink::watch_completions() {
  // Every 1024th poll with requests outstanding: a clock read costs more than a poll.
  if (sends_outstanding_ == 0 || (++watch_count_ & 1023) != 0) return;
  const auto silent = std::chrono::steady_clock::now() - send_progress_at_;
  if (silent < options_.completion_wait) return;
  fail(where() + ": " + std::to_string(sends_outstanding_) +
       " send requests outstanding and no completion for " +
       std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(silent).count()) +
       " ms (the adapter lost them?)");
}

void IbLink::progress() {
  if (in_progress_) {
    report_failure(handler_);
    return;
  }
  in_progress_ = true;
  if (!failed() && poll_completions()) {
    handle_receives();
    handle_sends();
    flush();
    finish_discarded_incoming();
    watch_completions();
  }
  in_progress_ = false;
  if (failed()) stop_after_failure();
  report_failure(handler_);
}

void IbLink::handle_receives() {
  if (mailbox_.receives.empty()) return;
  work_receives_.swap(mailbox_.receives);
  // What the handler sends back while it handles the batch rings the doorbell once.
  begin_burst();
  for (const ibv_wc& wc : work_receives_) {
    if (failed()) break;
    handle_receive(wc);
  }
  work_receives_.clear();
  return_credit_if_owed();
  end_burst();
}

void IbLink::handle_receive(const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) {
    completion_failed(wc, "a receive");
    return;
  }
  credits_.consumed();
  const auto index = static_cast<uint32_t>(wc.wr_id);
  if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
    repost(index);
    on_last_write(wc.imm_data);
    return;
  }
  const std::byte* buffer = endpoint_->receive_buffer(index);
  IbWireHeader w;
  if (wc.byte_len < sizeof w) {
    return protocol_failure("a " + std::to_string(wc.byte_len) +
                            "-byte message, shorter than its header");
  }
  std::memcpy(&w, buffer, sizeof w);
  credits_.peer_reported(w.credit);
  switch (static_cast<WireKind>(w.kind)) {
    case WireKind::kFrame:
      deliver_frame(buffer, wc.byte_len, index);
      return;
    case WireKind::kRts: {
      if (wc.byte_len != kFrameOverhead) return protocol_failure("a malformed RTS");
      FrameHeader h;
      std::memcpy(&h, buffer + sizeof w, sizeof h);
      repost(index);
      start_incoming(h, w.transfer);
      return;
    }
    case WireKind::kCts: {
      if (wc.byte_len != sizeof w + sizeof(CtsBody)) return protocol_failure("a malformed CTS");
      CtsBody body;
      std::memcpy(&body, buffer + sizeof w, sizeof body);
      repost(index);
      on_cts(w.transfer, body, w.flags);
      return;
    }
    case WireKind::kCredit:
      repost(index);
      return;
  }
  protocol_failure("a message of unknown kind " + std::to_string(w.kind));
}

void IbLink::deliver_frame(const std::byte* buffer, uint32_t bytes, uint32_t index) {
  FrameHeader h;
  std::memcpy(&h, buffer + sizeof(IbWireHeader), sizeof h);
  if (bytes < kFrameOverhead || h.magic != transport::kFrameMagic ||
      kFrameOverhead + h.payload_bytes != bytes) {
    return protocol_failure("a corrupt frame (bad magic or length)");
  }
  if (in_) {
    // It came behind a frame whose payload is still being written: it waits for that
    // one, copied aside, so that its receive is posted again and credit keeps flowing.
    Held& held = held_.emplace_back();
    held.header = h;
    held.payload.assign(buffer + kFrameOverhead, buffer + bytes);
    repost(index);
    return;
  }
  handler_.on_frame(peer_, h);
  if (h.payload_bytes > 0) {
    std::byte* target = handler_.payload_target(peer_, h, 0);
    if (target != nullptr) std::memcpy(target, buffer + kFrameOverhead, h.payload_bytes);
  }
  // Posted again before the handler hears the frame is done: what it sends back
  // carries the credit.
  repost(index);
  if (!failed()) handler_.on_payload_done(peer_, h);
}

void IbLink::deliver_held() {
  while (!held_.empty() && !in_ && !failed()) {
    Held held = std::move(held_.front());
    held_.pop_front();
    const FrameHeader& h = held.header;
    handler_.on_frame(peer_, h);
    if (h.payload_bytes > 0) {
      std::byte* target = handler_.payload_target(peer_, h, 0);
      if (target != nullptr) std::memcpy(target, held.payload.data(), h.payload_bytes);
    }
    handler_.on_payload_done(peer_, h);
  }
}

void IbLink::start_incoming(const FrameHeader& h, uint32_t id) {
  if (in_) {
    return protocol_failure("an RTS for transfer " + std::to_string(id) + " while transfer " +
                            std::to_string(in_->id) + " was under way");
  }
  if (h.magic != transport::kFrameMagic || h.payload_bytes == 0) {
    return protocol_failure("a corrupt RTS (bad magic or no payload)");
  }
  handler_.on_frame(peer_, h);
  std::byte* target = handler_.payload_target(peer_, h, 0);
  PendingCts& cts = pending_cts_.emplace();
  cts.id = id;
  if (target == nullptr) {
    // Nothing to write into: the sender skips its writes, and the frame is done now.
    cts.flags = kCtsDiscard;
    send_pending_cts();
    handler_.on_payload_done(peer_, h);
    return;
  }
  Incoming& in = in_.emplace();
  in.header = h;
  in.id = id;
  std::string why;
  // A target in device memory (the handler knows) is registered by GPUDirect RDMA.
  const int device = handler_.payload_device(peer_, h);
  in.target = device < 0
                  ? context_.registrations().acquire(target, h.payload_bytes, kTargetAccess, &why)
                  : context_.registrations().acquire_device(device_path_, target, h.payload_bytes,
                                                            device, kTargetAccess, &why);
  if (!in.target) {
    pending_cts_.reset();
    fail(where() + ": cannot register the receive buffer of a " + std::to_string(h.payload_bytes) +
         "-byte payload: " + why);
    return;
  }
  cts.body.address = reinterpret_cast<uint64_t>(target);
  cts.body.bytes = h.payload_bytes;
  cts.body.rkey = in.target.rkey();
  send_pending_cts();
}

void IbLink::on_cts(uint32_t id, const CtsBody& body, uint8_t flags) {
  if (!out_ || out_->id != id || out_->granted) {
    return protocol_failure("a CTS for transfer " + std::to_string(id) +
                            ", which is not awaiting one");
  }
  if (flags & kCtsDiscard) {
    finish_outgoing();
    return;
  }
  if (body.bytes != out_->frame.header.payload_bytes) {
    return protocol_failure("a CTS for " + std::to_string(body.bytes) + " bytes of a " +
                            std::to_string(out_->frame.header.payload_bytes) + "-byte payload");
  }
  out_->granted = true;
  out_->remote_address = body.address;
  out_->rkey = body.rkey;
  post_writes();
}

void IbLink::on_last_write(uint32_t id) {
  if (!in_ || in_->id != id) {
    return protocol_failure("the last write of transfer " + std::to_string(id) +
                            ", which was not under way");
  }
  const FrameHeader h = in_->header;
  context_.registrations().release(in_->target);
  in_.reset();
  handler_.on_payload_done(peer_, h);
  deliver_held();
}

void IbLink::withdraw_incoming() {
  if (!in_ || in_->discarded || failed()) return;
  if (pending_cts_ && pending_cts_->id == in_->id) {
    // The peer has not been told where to write: it is told to write nothing.
    pending_cts_->flags = kCtsDiscard;
    pending_cts_->body = CtsBody{};
    context_.registrations().release(in_->target);
    in_->discarded = true;
    return;
  }
  const uint32_t id = in_->id;
  const base::Deadline deadline = base::Deadline::after(kWriteWait);
  while (!failed() && !last_write_polled(id)) {
    if (!poll_completions()) break;
    read_socket();
    if (peer_closed_) fail(where() + ": " + closed_by_peer());
    if (deadline.expired()) {
      fail(where() + ": the RDMA WRITEs into a withdrawn receive buffer did not end within " +
           std::to_string(kWriteWait.count()) + " s");
    }
  }
  // A failed link's queue pair goes to ERR at once: the adapter takes no more writes.
  if (failed()) stop_after_failure();
}

bool IbLink::last_write_polled(uint32_t id) const {
  for (const std::vector<ibv_wc>* list : {&mailbox_.receives, &work_receives_}) {
    for (const ibv_wc& wc : *list) {
      if (wc.status != IBV_WC_SUCCESS) return true;
      if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.imm_data == id) return true;
    }
  }
  return false;
}

void IbLink::finish_discarded_incoming() {
  if (!in_ || !in_->discarded || (pending_cts_ && pending_cts_->id == in_->id)) return;
  const FrameHeader h = in_->header;
  in_.reset();
  handler_.on_payload_done(peer_, h);
  deliver_held();
}

void IbLink::repost(uint32_t index) {
  if (const int rc = endpoint_->post_receive(index); rc != 0) {
    fail(where() + ": ibv_post_recv failed: " + errno_text(rc));
    return;
  }
  credits_.posted_again();
}

void IbLink::handle_sends() {
  if (mailbox_.sends.empty() || in_sends_) return;
  in_sends_ = true;
  note_send_progress();
  work_sends_.swap(mailbox_.sends);
  for (const ibv_wc& wc : work_sends_) handle_send(wc);
  work_sends_.clear();
  in_sends_ = false;
  // A completion shows the peer has the message: if it went to sleep meanwhile, it
  // must hear of it.
  ring_if_peer_sleeps();
}

void IbLink::handle_send(const ibv_wc& wc) {
  --sends_outstanding_;
  const SendWork kind = send_work_kind(wc.wr_id);
  const uint32_t value = send_work_value(wc.wr_id);
  if (kind == SendWork::kBuffer) free_buffers_.push_back(value);
  if (wc.status != IBV_WC_SUCCESS) return completion_failed(wc, what_failed(wc, true));
  if (failed() || kind != SendWork::kWrite || !out_ || out_->id != value) return;
  --out_->writes_outstanding;
  if (out_->last_posted && out_->writes_outstanding == 0) {
    finish_outgoing();
  } else {
    post_writes();
  }
}

std::string IbLink::what_failed(const ibv_wc& wc, bool send) const {
  if (!send) return "a receive";
  const uint32_t value = send_work_value(wc.wr_id);
  switch (send_work_kind(wc.wr_id)) {
    case SendWork::kBuffer:
      return "a SEND";
    case SendWork::kWrite:
      return "an RDMA WRITE of transfer " + std::to_string(value) +
             (out_ && out_->id == value
                  ? " (" + std::to_string(out_->frame.header.payload_bytes) + " bytes)"
                  : std::string());
    case SendWork::kSleepFlag:
      return "the RDMA WRITE of the sleep flag";
  }
  return "a send work request";
}

void IbLink::protocol_failure(const std::string& what) {
  fail(where() + ": protocol error: " + what);
}

void IbLink::completion_failed(const ibv_wc& wc, const std::string& what) {
  if (wc.status == IBV_WC_WR_FLUSH_ERR) {
    // Flushed because the queue pair went to ERR: the request that took it there, if
    // its completion is here too, says why.
    const std::vector<ibv_wc>* lists[] = {&work_sends_, &mailbox_.sends, &work_receives_,
                                          &mailbox_.receives};
    for (int i = 0; i < 4; ++i) {
      for (const ibv_wc& other : *lists[i]) {
        if (other.status != IBV_WC_SUCCESS && other.status != IBV_WC_WR_FLUSH_ERR) {
          return completion_failed(other, what_failed(other, i < 2));
        }
      }
    }
    fail(where() + ": the queue pair went to the error state, and " + what + " was flushed (" +
         describe_wc_status(wc.status) + ")");
  } else {
    fail(where() + ": " + what + " failed: " + describe_wc_status(wc.status) +
         (wc.vendor_err != 0 ? ", vendor error " + std::to_string(wc.vendor_err) : ""));
  }
}

void IbLink::stop_after_failure() {
  if (stopped_) return;
  stopped_ = true;
  // The queue pair goes at once: the adapter stops, touching no memory of a transfer
  // any more. A link closed in good order keeps it until the link goes instead: what the
  // peer sends before it hears of the close (its goodbye) still finds a receive, within
  // its credit.
  if (!closed_) endpoint_->destroy_queue_pair();
  // Memory the transfers pointed at is registered no more.
  if (out_) context_.registrations().release(out_->source);
  if (in_) context_.registrations().release(in_->target);
}

// ---------------------------------------------------------------------------------------
// Sleeping, the doorbell and failure

void IbLink::end_burst() {
  if (--burst_depth_ > 0 || !bell_due_) return;
  bell_due_ = false;
  ring_doorbell();
}

bool IbLink::prepare_to_sleep() {
  if (failed()) return true;
  if (!poll_completions()) return false;
  if (!mailbox_.receives.empty() || !mailbox_.sends.empty()) return false;
  // Completions of this side's own requests raise no event: wait for them awake.
  if (sends_outstanding_ > 0) return false;
  if (!sleep_announced_) {
    announce_sleep();
    return false;  // asleep once the write has completed and nothing came meanwhile
  }
  return true;
}

void IbLink::announce_sleep() {
  uint64_t* own = endpoint_->own_sleep_word();
  *own = ++sleep_generation_;
  ibv_sge sge{};
  sge.addr = reinterpret_cast<uint64_t>(own);
  sge.length = sizeof *own;
  sge.lkey = endpoint_->control_lkey();
  ibv_send_wr wr{};
  wr.wr_id = send_wr_id(SendWork::kSleepFlag, 0);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.wr.rdma.remote_addr = endpoint_->remote().sleep_address;
  wr.wr.rdma.rkey = endpoint_->remote().sleep_rkey;
  ibv_send_wr* bad = nullptr;
  if (const int rc = api_.post_send(endpoint_->qp(), &wr, &bad); rc != 0) {
    fail(where() + ": ibv_post_send of the sleep flag failed: " + errno_text(rc));
    return;
  }
  if (sends_outstanding_++ == 0) note_send_progress();
  sleep_announced_ = true;
}

void IbLink::ring_if_peer_sleeps() {
  // The peer's adapter writes the word; an 8-byte aligned write lands whole.
  const uint64_t generation =
      std::atomic_ref<uint64_t>(*const_cast<uint64_t*>(endpoint_->peer_sleep_word()))
          .load(std::memory_order_acquire);
  if (generation == rung_for_) return;
  rung_for_ = generation;
  if (burst_depth_ > 0) {
    bell_due_ = true;
  } else {
    ring_doorbell();
  }
}

void IbLink::ring_doorbell() {
  char bell = 1;
  ++doorbells_;
  // A full socket buffer already holds a doorbell the peer has yet to read.
  ::send(socket_.get(), &bell, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void IbLink::read_socket() {
  char sink[256];
  while (!peer_closed_ && !failed()) {
    ssize_t n = ::recv(socket_.get(), sink, sizeof sink, MSG_DONTWAIT);
    if (n > 0) {
      // The peer answered this side's sleep: the next sleep announces a new generation.
      sleep_announced_ = false;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    // Closed or reset (a peer that exits with a doorbell unread resets it): either way
    // it is gone, and what it sent before is delivered first.
    peer_closed_ = true;
    socket_error_ = n == 0 ? "" : std::strerror(errno);
    return;
  }
}

void IbLink::service_fd() {
  read_socket();
  // What the peer sent before its socket closed has arrived: deliver it (a goodbye
  // among it makes its exit an orderly one) before failing.
  progress();
  if (peer_closed_ && !failed()) {
    // The payload under way will not land; what the peer sent behind it is whole, and
    // is delivered before the link fails (the peer may have left after sending it).
    if (in_) {
      // Nothing more may be written into its target: the queue pair takes no more
      // (posting to it stays harmless while the frames go up).
      ibv_qp_attr attr{};
      attr.qp_state = IBV_QPS_ERR;
      api_.modify_qp(endpoint_->qp(), &attr, IBV_QP_STATE);
      context_.registrations().release(in_->target);
      in_.reset();
    }
    deliver_held();
    fail(where() + ": " + closed_by_peer());
  }
  if (failed()) stop_after_failure();
  report_failure(handler_);
}

void IbLink::drain_and_close(int timeout_ms) {
  const base::Deadline deadline = base::Deadline::after(std::chrono::milliseconds(timeout_ms));
  while (!failed() && has_output() && !deadline.expired()) {
    progress();
    if (!has_output() || failed()) break;
    read_socket();
    if (peer_closed_) break;
    if (sends_outstanding_ == 0) {
      // Waiting for the peer (credit, a clear-to-send): it consumes on its own.
      pollfd p{socket_.get(), POLLIN, 0};
      ::poll(&p, 1, 1);
    }
  }
  if (has_output() && !failed()) {
    WEFT_LOG(WARN) << "closing the verbs link to rank " << peer_ << " with unsent data after "
                   << timeout_ms << " ms";
  }
  closed_ = true;
  close_quietly();
  stop_after_failure();
  base::close_gently(socket_);
}

}  // namespace weft::transport::ib
