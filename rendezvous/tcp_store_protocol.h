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
//
// What a stranger can make the server hold is bounded: before a connection has
// authenticated (when a token is required) its records may be at most
// kMaxPreAuthRecord bytes, at most kMaxUnauthenticated such connections are open at
// once, and one that has not authenticated within kPreAuthDeadline is closed. Every
// connection buffers at most one record of input, and none while its reply is pending
// or while kMaxPendingReplies of its replies are unread (TCP's flow control holds the
// rest in the sender); all connections together buffer at most
// WEFT_STORE_MAX_BUFFERED bytes of input. A connection the server cannot take (too
// many connections, no file descriptor left) is sent one kRefused record saying why,
// then closed, so that the joining process fails at once with the cause.
#pragma once

#include <chrono>
#include <cstdint>

namespace weft::rendezvous {

enum class StoreOp : uint8_t { kSet = 1, kGet, kAdd, kWait, kCheck, kDelete, kAuth };
enum class StoreStatus : uint8_t { kOk = 0, kTimedOut = 1, kBadRequest = 2, kRefused = 3 };

inline constexpr uint64_t kNoTimeout = UINT64_MAX;
inline constexpr uint32_t kMaxStoreRecord = 64u << 20;
inline constexpr uint32_t kMaxStoreKeys = 1u << 20;
inline constexpr uint32_t kMaxPreAuthRecord = 4096;
inline constexpr int kMaxUnauthenticated = 1024;
inline constexpr auto kPreAuthDeadline = std::chrono::milliseconds(10000);
inline constexpr uint64_t kMaxPendingReplies = 2ull * kMaxStoreRecord;
inline constexpr uint64_t kDefaultMaxBuffered = 256ull << 20;  // WEFT_STORE_MAX_BUFFERED
inline constexpr int kDefaultMaxConnections = 65536;           // WEFT_STORE_MAX_CONNECTIONS

}  // namespace weft::rendezvous
