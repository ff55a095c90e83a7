// The wire protocol between TcpStoreClient and TcpStoreServer. Each request and reply is
// one length-prefixed record (base::send_record) encoded with WireWriter:
//
//   request: u8 op, u64 timeout_ms (waiting ops; kNoTimeout = wait forever),
//            u32 key count, keys (str), then op-specific: kSet str value; kAdd i64 delta
//   reply:   u8 status, then for kOk: kGet str value; kAdd i64; kCheck/kDelete u8 bool;
//            for kTimedOut: str listing the missing keys; for kBadRequest: str reason.
//
// Waiting ops (kGet, kWait) are timed on the server, so a client that gives up always
// gets a reply and its connection stays in step.
//
// kAuth carries the shared secret (WEFT_AUTH_TOKEN) as its one key. A server given a
// token answers nothing else on a connection until it has seen the right one; a client
// with a token sends it first. Wrong or missing, the server replies kBadRequest, logs a
// warning naming the address and closes that connection; the others go on.
#pragma once

#include <cstdint>

namespace weft::rendezvous {

enum class StoreOp : uint8_t { kSet = 1, kGet, kAdd, kWait, kCheck, kDelete, kAuth };
enum class StoreStatus : uint8_t { kOk = 0, kTimedOut = 1, kBadRequest = 2 };

inline constexpr uint64_t kNoTimeout = UINT64_MAX;
inline constexpr uint32_t kMaxStoreRecord = 64u << 20;
inline constexpr uint32_t kMaxStoreKeys = 1u << 20;

}  // namespace weft::rendezvous
