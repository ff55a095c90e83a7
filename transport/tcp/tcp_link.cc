#include "transport/tcp/tcp_link.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/log.h"
#include "weft/error.h"

namespace weft::transport::tcp {
namespace {

// Small enough that a large payload's first piece, which lands here, is cheap to copy
// out; large enough to take hundreds of small frames in one system call.
constexpr size_t kStagingBytes = 16 << 10;
// Payload pieces at least this large bypass the staging buffer.
constexpr uint64_t kDirectReadBytes = 4 << 10;
// Bounds the work of one progress() call on one link, so that a fast sender cannot
// starve the engine's other links.
constexpr int kMaxReadsPerProgress = 64;
constexpr int kMaxIov = 64;
// Linux moves at most this much per read/write call.
constexpr uint64_t kMaxIoBytes = 0x7ffff000;

std::string describe_fd(int fd) {
  try {
    base::SocketAddress local = base::local_address(fd);
    base::SocketAddress remote;
    remote.length = sizeof remote.storage;
    getpeername(fd, reinterpret_cast<sockaddr*>(&remote.storage), &remote.length);
    return "tcp " + local.to_string() + " -> " + remote.to_string();
  } catch (const Error&) {
    return "tcp";
  }
}

}  // namespace

TcpLink::TcpLink(int peer, base::Fd fd, transport::LinkHandler& handler, uint64_t stream_chunk)
    : peer_(peer),
      fd_(std::move(fd)),
      handler_(handler),
      stream_chunk_(stream_chunk),
      description_(describe_fd(fd_.get())),
      staging_(kStagingBytes) {
  base::set_nonblocking(fd_.get(), true);
  base::set_nodelay(fd_.get());
}

TcpLink::~TcpLink() = default;

bool TcpLink::send(const transport::FrameHeader& header, const void* payload, void* cookie) {
  refuse_if_failed();
  if (!current_ && !queue_.has_control() && !in_flush_ && burst_depth_ == 0) {
    transport::SendQueue::Frame frame{
        header, static_cast<const std::byte*>(payload), {}, cookie, cookie, 0};
    // Fast path: nothing queued ahead, so write header and payload in one call now.
    iovec iov[2] = {{&frame.header, sizeof(frame.header)},
                    {const_cast<std::byte*>(frame.payload), frame.header.payload_bytes}};
    int count = frame.header.payload_bytes > 0 ? 2 : 1;
    if (frame.header.payload_bytes > kMaxIoBytes) count = 1;
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    ++write_calls_;
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      write_failed(std::string("send failed: ") + std::strerror(errno));
      return false;
    }
    frame.written = n > 0 ? static_cast<uint64_t>(n) : 0;
    if (frame.written == frame.total()) return true;
    // The kernel took less than the whole frame: its buffer is full (unless a signal
    // interrupted the call before it took anything).
    if (n >= 0 || errno != EINTR) socket_full_ = true;
    if (cookie == nullptr) frame.own_payload();
    current_ = std::move(frame);
    return false;
  }
  queue_.push_frame(header, payload, cookie);
  if (!socket_full_) flush();
  return false;
}

void TcpLink::send_stream(const transport::FrameHeader& header, const void* data, uint64_t bytes,
                          void* cookie) {
  refuse_if_failed();
  queue_.push_stream(header, data, bytes, cookie);
  if (!socket_full_) flush();
}

void TcpLink::end_burst() {
  if (--burst_depth_ == 0 && !socket_full_) flush();
}

bool TcpLink::abandon(void* cookie) {
  // A frame is the unit of the byte stream: one that has started must be finished, so
  // its payload is copied rather than cut short.
  if (current_ && current_->owner == cookie) current_->own_payload();
  return queue_.abandon(cookie);
}

void TcpLink::progress() {
  if (!failed()) {
    read();
    if (!write_failure_.empty()) fail(write_failure_);
  }
  socket_full_ = false;  // the one place that tries a full socket again
  if (!failed()) flush();
  report_failure(handler_);
}

void TcpLink::write_failed(const std::string& why) {
  // Not a failure yet: the peer's last frames may be waiting in the socket. A peer that
  // closed its end while our data was on the way reset the connection, and a send
  // learns that first, before anything has read what the peer sent before it closed (a
  // goodbye saying why it left, a desync it found). The next progress() reads them,
  // then fails the link; the socket, reset, stays readable until then, so the engine's
  // poll calls it soon. Writing stops here.
  if (write_failure_.empty()) write_failure_ = why;
}

bool TcpLink::next_frame() {
  transport::SendQueue::Frame frame;
  if (!queue_.take_next(frame, stream_chunk_)) return false;
  current_ = std::move(frame);
  return true;
}

void TcpLink::flush() {
  if (in_flush_ || burst_depth_ > 0 || failed() || !write_failure_.empty()) return;
  if (!current_ && queue_.empty()) return;  // every poll ends a burst: keep that cheap
  in_flush_ = true;
  while (current_ || next_frame()) {
    // Gather the current frame and the control frames behind it into one writev.
    iovec iov[kMaxIov];
    int count = 0;
    uint64_t batch = 0;
    auto add = [&](transport::SendQueue::Frame& f, uint64_t skip) {
      uint64_t header_left = skip < sizeof(f.header) ? sizeof(f.header) - skip : 0;
      if (header_left > 0) {
        iov[count++] = {reinterpret_cast<char*>(&f.header) + skip, header_left};
      }
      uint64_t payload_skip = skip > sizeof(f.header) ? skip - sizeof(f.header) : 0;
      uint64_t payload_left = f.header.payload_bytes - payload_skip;
      if (payload_left > 0 && count < kMaxIov) {
        uint64_t take = std::min(payload_left, kMaxIoBytes - batch - header_left);
        iov[count++] = {const_cast<std::byte*>(f.payload) + payload_skip, take};
      }
      batch += header_left + payload_left;
    };
    add(*current_, current_->written);
    for (auto& f : queue_.control()) {
      if (count + 2 > kMaxIov || batch >= kMaxIoBytes / 2) break;
      add(f, 0);
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = count;
    ++write_calls_;
    ssize_t n = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        socket_full_ = true;
        break;
      }
      write_failed(std::string("send failed: ") + std::strerror(errno));
      break;
    }
    // Retire what was written: the current frame first, then the gathered ones, in the
    // order next_frame() hands them out.
    uint64_t left = static_cast<uint64_t>(n);
    bool blocked = false;
    while (left > 0) {
      if (!current_ && !next_frame()) break;
      uint64_t take = std::min(left, current_->total() - current_->written);
      current_->written += take;
      left -= take;
      if (current_->written < current_->total()) {
        blocked = true;  // the kernel took only part of this frame: its buffer is full
        socket_full_ = true;
        break;
      }
      void* cookie = current_->cookie;
      current_.reset();
      if (cookie != nullptr) handler_.on_sent(peer_, cookie);
      if (failed()) break;
    }
    if (blocked || failed()) break;
  }
  in_flush_ = false;
}

void TcpLink::read() {
  for (int reads = 0; reads < kMaxReadsPerProgress && !failed(); ++reads) {
    if (!consume_staging()) return;
    // Staging is empty here. A large payload piece goes straight to its target.
    std::byte* target = nullptr;
    uint64_t want = staging_.size();
    if (in_payload_) {
      uint64_t left = in_header_.payload_bytes - in_payload_done_;
      if (left >= kDirectReadBytes)
        target = handler_.payload_target(peer_, in_header_, in_payload_done_);
      if (target != nullptr) want = std::min(left, kMaxIoBytes);
    }
    ssize_t n = ::recv(fd_.get(), target != nullptr ? target : staging_.data(), want, MSG_DONTWAIT);
    if (n == 0) return fail("connection closed by the peer");
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      return fail(std::string("receive failed: ") + std::strerror(errno));
    }
    if (target != nullptr) {
      in_payload_done_ += static_cast<uint64_t>(n);
      if (in_payload_done_ == in_header_.payload_bytes) {
        in_payload_ = false;
        handler_.on_payload_done(peer_, in_header_);
      }
    } else {
      staging_begin_ = 0;
      staging_end_ = static_cast<size_t>(n);
    }
    // A short read drained the socket: another recv() would only say EAGAIN, and epoll
    // reports new data anyway. Saving that call matters for small messages.
    if (static_cast<uint64_t>(n) < want) break;
  }
  consume_staging();
}

bool TcpLink::consume_staging() {
  // What the handler sends back while it handles the frames of one read leaves in one
  // writev, after them; never later than that, so a clear-to-send does not wait for the
  // next reads of a long stream.
  begin_burst();
  while (staging_begin_ < staging_end_ && !failed()) {
    size_t avail = staging_end_ - staging_begin_;
    const std::byte* p = staging_.data() + staging_begin_;
    if (!in_payload_) {
      size_t take = std::min(avail, sizeof(in_header_) - in_header_bytes_);
      std::memcpy(reinterpret_cast<std::byte*>(&in_header_) + in_header_bytes_, p, take);
      in_header_bytes_ += take;
      staging_begin_ += take;
      if (in_header_bytes_ < sizeof(in_header_)) continue;
      in_header_bytes_ = 0;
      if (in_header_.magic != transport::kFrameMagic) {
        fail("corrupt frame header (bad magic): the byte stream is out of step");
        break;
      }
      if (in_header_.payload_bytes <= staging_end_ - staging_begin_) {
        // The whole frame is in this read (a small message, typically): one call.
        handler_.on_whole_frame(peer_, in_header_, staging_.data() + staging_begin_);
        staging_begin_ += in_header_.payload_bytes;
        continue;
      }
      // Its payload (never empty here) comes in pieces, this read's and later ones.
      handler_.on_frame(peer_, in_header_);
      in_payload_ = true;
      in_payload_done_ = 0;
      continue;
    }
    uint64_t take = std::min<uint64_t>(avail, in_header_.payload_bytes - in_payload_done_);
    std::byte* target = handler_.payload_target(peer_, in_header_, in_payload_done_);
    if (target != nullptr) std::memcpy(target, p, take);
    staging_begin_ += take;
    in_payload_done_ += take;
    if (in_payload_done_ == in_header_.payload_bytes) {
      in_payload_ = false;
      handler_.on_payload_done(peer_, in_header_);
    }
  }
  end_burst();
  return !failed();
}

void TcpLink::drain_and_close(int timeout_ms) {
  base::Deadline deadline = base::Deadline::after(std::chrono::milliseconds(timeout_ms));
  while (!failed() && wants_write() && !deadline.expired()) {
    flush();
    if (!wants_write() || failed()) break;
    pollfd p{fd_.get(), POLLOUT, 0};
    ::poll(&p, 1, deadline.poll_ms(50));
  }
  if (wants_write() && !failed()) {
    WEFT_LOG(WARN) << "closing the link to rank " << peer_ << " with unsent data after "
                   << timeout_ms << " ms";
  }
  close_quietly();
  base::close_gently(fd_);
}

}  // namespace weft::transport::tcp
