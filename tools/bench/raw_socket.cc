#include "tools/bench/raw_socket.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "weft/weft.h"

namespace weft::bench {

RawSocketPair::RawSocketPair(int rank) {
  uint32_t port = 0;
  if (rank == 0) {
    base::Fd listener = base::listen_on(base::resolve("127.0.0.1", 0).front(), 1);
    port = base::local_address(listener.get()).port();
    weft::send(weft::view(std::span(&port, 1)), 1);
    fd_ = base::Fd(::accept(listener.get(), nullptr, nullptr));
    if (!fd_) throw Error(ErrorCode::kInternal, std::string("accept: ") + std::strerror(errno));
    base::set_nodelay(fd_.get());
  } else {
    weft::recv(weft::view(std::span(&port, 1)), 0);
    fd_ = base::connect_to(base::resolve("127.0.0.1", static_cast<uint16_t>(port)).front(),
                           base::Deadline::after(std::chrono::seconds(10)));
  }
}

void RawSocketPair::send(const void* data, size_t bytes) {
  auto* p = static_cast<const char*>(data);
  while (bytes > 0) {
    ssize_t n = ::send(fd_.get(), p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorCode::kPeer, std::string("raw send: ") + std::strerror(errno));
    p += n;
    bytes -= static_cast<size_t>(n);
  }
}

void RawSocketPair::recv(void* data, size_t bytes) {
  auto* p = static_cast<char*>(data);
  while (bytes > 0) {
    ssize_t n = ::recv(fd_.get(), p, bytes, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      bytes -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) throw Error(ErrorCode::kPeer, "raw recv: connection closed");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      throw Error(ErrorCode::kPeer, std::string("raw recv: ") + std::strerror(errno));
    }
  }
}

}  // namespace weft::bench
