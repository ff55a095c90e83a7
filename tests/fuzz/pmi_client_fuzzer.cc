// The PMI-1 client's input: the lines of the process manager on PMI_FD (mpiexec.hydra or
// anything else that set PMI_FD). The bytes are everything the process manager sends,
// after which it closes its end; the client runs init, put, barrier, get and finalize
// over a socket pair, each step going on after the last one failed. Checks that the
// client fails only with a weft::Error, and that what init accepts is usable: a
// non-empty kvsname and limits that leave room for a key and a value.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "rendezvous/pmi_client.h"
#include "tests/fuzz/fuzz_check.h"
#include "weft/error.h"

namespace r = weft::rendezvous;

namespace {

template <typename F>
void step(F f) {
  try {
    f();
  } catch (const weft::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // What fits a socket buffer at once, so that writing it all first cannot block.
  if (size > 65536) return 0;
  int fds[2];
  FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0, "socketpair");
  for (size_t done = 0; done < size;) {
    ssize_t n = write(fds[1], data + done, size - done);
    FUZZ_CHECK(n > 0, "writing the process manager's side");
    done += static_cast<size_t>(n);
  }
  shutdown(fds[1], SHUT_WR);  // the process manager says no more (the client's lines
                              // still land in fds[1]'s buffer)
  {
    r::PmiClient client(fds[0], 0, 2);  // owns fds[0]
    bool initialized = false;
    step([&] {
      client.init();
      initialized = true;
    });
    if (initialized) {
      FUZZ_CHECK(!client.kvsname().empty(), "init accepted an empty kvsname");
      FUZZ_CHECK(client.max_key_length() >= 1 && client.max_value_length() >= 1,
                 "init accepted limits without room for a key or a value");
    }
    step([&] { client.put("weft-key", "value"); });
    step([&] { client.barrier(); });
    step([&] {
      std::string value = client.get("weft-key");
      FUZZ_CHECK(value.find('\n') == std::string::npos, "a value holds a newline");
    });
    step([&] { client.finalize(); });
  }
  close(fds[1]);
  return 0;
}
