#include "transport/link.h"

#include "weft/error.h"

namespace weft::transport {

// The engine asks takes_device_memory() first; reaching this is a bug, and copying the
// stream with the CPU instead could read device memory.
void Link::send_stream_by_rdma(const FrameHeader&, const void*, uint64_t, void*, int) {
  throw Error(ErrorCode::kInternal,
              "link to rank " + std::to_string(peer()) + " (" + describe() +
                  ") cannot move a stream by RDMA: it does not take device memory");
}

}  // namespace weft::transport
