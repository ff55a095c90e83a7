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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A request as the server reads it. Parsing and encoding live here, apart from the
// sockets, so that both can be tested (and fuzzed) on plain bytes.
struct StoreRequest {
  StoreOp op{};
  uint64_t timeout_ms = kNoTimeout;
  std::vector<std::string> keys;
  std::string value;  // kSet
  int64_t delta = 0;  // kAdd
};

// The record of `r`, as the client sends it (without the length prefix).
std::string encode_request(const StoreRequest& r);

// A request record (without its length prefix). Error (kInvalidArgument or kInternal)
// for an unknown op, a key count outside [1, kMaxStoreKeys], a truncated record or
// trailing bytes.
StoreRequest parse_request(std::string_view record);

// Where the next record of a connection's buffered input stands: its length prefix is
// still incomplete or the record is (kIncomplete), it declares more than the limit
// (kTooLong, `length` says how much), or it is all there (kComplete: `length` bytes
// after the 4-byte prefix).
struct RecordFrame {
  enum State { kIncomplete, kTooLong, kComplete } state = kIncomplete;
  uint32_t length = 0;
};
RecordFrame frame_record(std::string_view buffered, uint32_t limit);

// When a waiting request that arrived at `now` times out: never for kNoTimeout, and
// saturating at time_point::max() for timeouts too long to represent.
std::chrono::steady_clock::time_point request_deadline(std::chrono::steady_clock::time_point now,
                                                       uint64_t timeout_ms);

// A reply: its status and the bytes after it. For any status but kOk the body is the
// server's text (the reason, or the missing keys), which `message` holds.
struct StoreReply {
  StoreStatus status = StoreStatus::kOk;
  std::string body;
  std::string message;
};

// A reply record of status `status` (not kOk) carrying `message`.
std::string encode_status_reply(StoreStatus status, std::string_view message);

// A reply record (without its length prefix). Error(kInternal) when it is empty, or when
// a status other than kOk does not carry its text. Statuses the client does not know
// are kept as they are (the client treats them as a refused request).
StoreReply parse_reply(std::string_view record);

// The reason in a kRefused record at the start of `peeked` (what a client finds unread
// on a connection the server closed), length prefix included; nullopt when `peeked`
// does not start with a whole one.
std::optional<std::string> parse_refusal(std::string_view peeked);

// The bodies of kOk replies: kGet's value, kAdd's new value, kCheck's and kDelete's
// answer. Error(kInternal) when the body is too short for it.
std::string reply_value(std::string_view body);
int64_t reply_counter(std::string_view body);
bool reply_flag(std::string_view body);

}  // namespace weft::rendezvous
