// The TCP link's receive side: the byte stream of a peer, cut into 64-byte FrameHeaders
// and their payloads (transport/frame.h). The bytes are everything the peer sends
// before it closes the connection; a TcpLink reads them over a socket pair. Checks that
// the link delivers exactly the frames an independent reading of the stream finds (the
// complete frames before the first header with a bad magic), with their payloads intact,
// and then fails: at the bad magic, or because the peer closed the connection.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "base/failure.h"
#include "base/socket.h"
#include "tests/fuzz/fuzz_check.h"
#include "transport/frame.h"
#include "transport/link.h"
#include "transport/tcp/tcp_link.h"

namespace {

using weft::transport::FrameHeader;

struct Frame {
  FrameHeader header;
  std::string payload;
};

// Keeps the payloads it is given room for; larger ones it discards (nullptr), as the
// engine does for an abandoned receive.
struct Handler : weft::transport::LinkHandler {
  static constexpr uint64_t kKept = 1 << 16;
  std::vector<Frame> done;
  std::string current;
  int started = 0;
  std::vector<std::string> failures;

  void on_frame(int, const FrameHeader& h) override {
    ++started;
    current.assign(h.payload_bytes <= kKept ? h.payload_bytes : 0, '\0');
  }
  std::byte* payload_target(int, const FrameHeader& h, uint64_t offset) override {
    FUZZ_CHECK(offset < h.payload_bytes, "a payload piece past the payload");
    if (h.payload_bytes > kKept) return nullptr;
    return reinterpret_cast<std::byte*>(current.data()) + offset;
  }
  void on_payload_done(int, const FrameHeader& h) override { done.push_back({h, current}); }
  void on_sent(int, void*) override {}
  void on_link_failed(int, const weft::base::Failure& f) override { failures.push_back(f.why()); }
};

// The frames a correct reader finds in `in`, and whether it stops at a bad magic.
std::vector<Frame> expected_frames(const uint8_t* in, size_t size, bool& bad_magic) {
  std::vector<Frame> frames;
  size_t at = 0;
  bad_magic = false;
  while (size - at >= sizeof(FrameHeader)) {
    Frame f;
    std::memcpy(&f.header, in + at, sizeof f.header);
    if (f.header.magic != weft::transport::kFrameMagic) {
      bad_magic = true;
      break;
    }
    at += sizeof f.header;
    if (f.header.payload_bytes > size - at) break;
    if (f.header.payload_bytes <= Handler::kKept) {
      f.payload.assign(reinterpret_cast<const char*>(in) + at, f.header.payload_bytes);
    }
    at += f.header.payload_bytes;
    frames.push_back(std::move(f));
  }
  return frames;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // What fits a socket buffer at once, so that writing it all first cannot block.
  if (size > 100000) return 0;
  int fds[2];
  FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "socketpair");
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fds[1], data + done, size - done);
    FUZZ_CHECK(n > 0, "writing the peer's side");
    done += static_cast<size_t>(n);
  }
  close(fds[1]);  // the peer is gone once its bytes are read

  Handler handler;
  {
    weft::transport::tcp::TcpLink link(1, weft::base::Fd(fds[0]), handler);
    // Each progress() reads a bounded amount; the input is at most ~7 staging buffers.
    for (int i = 0; i < 1000 && handler.failures.empty(); ++i) link.progress();
  }
  FUZZ_CHECK(handler.failures.size() == 1, "the link did not fail exactly once at the end");
  bool bad_magic = false;
  std::vector<Frame> expected = expected_frames(data, size, bad_magic);
  FUZZ_CHECK(handler.done.size() == expected.size(), "a different number of frames");
  for (size_t i = 0; i < expected.size(); ++i) {
    FUZZ_CHECK(std::memcmp(&handler.done[i].header, &expected[i].header, sizeof(FrameHeader)) == 0,
               "a header differs");
    FUZZ_CHECK(handler.done[i].payload == expected[i].payload, "a payload differs");
  }
  FUZZ_CHECK(handler.started <= static_cast<int>(expected.size()) + 1, "frames out of nowhere");
  const bool said_bad_magic = handler.failures[0].find("bad magic") != std::string::npos;
  FUZZ_CHECK(said_bad_magic == bad_magic, "the failure is not the one the stream calls for");
  return 0;
}
