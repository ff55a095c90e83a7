// What the soft device's ibv_reg_dmabuf_mr checks before it registers anything: that the
// descriptor it is given really is the memory of [iova, iova + length) in this process.
// An adapter reaches a dma-buf through the exporter's pages; the soft device reaches
// memory by address (process_vm_writev/readv), so it registers the range at the iova
// and must first make sure that the file the descriptor names is what is mapped there,
// from `offset` on, or a registration that "worked" would let the peer write into
// whatever happens to live at that address.
#pragma once

#include <cstdint>
#include <string>

namespace weft::testing::soft_verbs {

// Why [iova, iova + length) of this process is not [offset, offset + length) of the
// file `fd` refers to (the mappings of /proc/self/maps); "" when it is.
std::string dma_buf_mismatch(int fd, uint64_t offset, uint64_t length, uint64_t iova);

}  // namespace weft::testing::soft_verbs
