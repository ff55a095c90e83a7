#include "rendezvous/tcp_store_protocol.h"

#include <cstring>

#include "base/wire.h"
#include "weft/error.h"

namespace weft::rendezvous {

std::string encode_request(const StoreRequest& r) {
  base::WireWriter w;
  w.u8(static_cast<uint8_t>(r.op)).u64(r.timeout_ms).u32(static_cast<uint32_t>(r.keys.size()));
  for (const auto& k : r.keys) w.str(k);
  if (r.op == StoreOp::kSet) w.str(r.value);
  if (r.op == StoreOp::kAdd) w.i64(r.delta);
  return w.take();
}

StoreRequest parse_request(std::string_view record) {
  base::WireReader in(record, "store request");
  StoreRequest r;
  uint8_t op = in.u8();
  if (op < static_cast<uint8_t>(StoreOp::kSet) || op > static_cast<uint8_t>(StoreOp::kAuth)) {
    throw Error(ErrorCode::kInvalidArgument, "unknown store op " + std::to_string(op));
  }
  r.op = static_cast<StoreOp>(op);
  r.timeout_ms = in.u64();
  uint32_t nkeys = in.u32();
  if (nkeys == 0 || nkeys > kMaxStoreKeys) {
    throw Error(ErrorCode::kInvalidArgument, "bad key count " + std::to_string(nkeys));
  }
  for (uint32_t i = 0; i < nkeys; ++i) r.keys.push_back(in.str());
  if (r.op == StoreOp::kSet) r.value = in.str();
  if (r.op == StoreOp::kAdd) r.delta = in.i64();
  if (!in.done()) throw Error(ErrorCode::kInvalidArgument, "trailing bytes in store request");
  return r;
}

RecordFrame frame_record(std::string_view buffered, uint32_t limit) {
  RecordFrame f;
  if (buffered.size() < sizeof(uint32_t)) return f;
  std::memcpy(&f.length, buffered.data(), sizeof f.length);
  if (f.length > limit) {
    f.state = RecordFrame::kTooLong;
  } else if (buffered.size() - sizeof(uint32_t) >= f.length) {
    f.state = RecordFrame::kComplete;
  }
  return f;
}

std::chrono::steady_clock::time_point request_deadline(std::chrono::steady_clock::time_point now,
                                                       uint64_t timeout_ms) {
  using Clock = std::chrono::steady_clock;
  if (timeout_ms == kNoTimeout) return Clock::time_point::max();
  // The wire allows timeouts of 2^64 ms, the clock only ~292 years of nanoseconds:
  // longer is forever, not a signed overflow.
  const auto room =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now);
  if (timeout_ms >= static_cast<uint64_t>(room.count())) return Clock::time_point::max();
  return now + std::chrono::milliseconds(static_cast<int64_t>(timeout_ms));
}

std::string encode_status_reply(StoreStatus status, std::string_view message) {
  return base::WireWriter().u8(static_cast<uint8_t>(status)).str(message).take();
}

StoreReply parse_reply(std::string_view record) {
  if (record.empty()) throw Error(ErrorCode::kInternal, "empty store reply");
  StoreReply r;
  r.status = static_cast<StoreStatus>(static_cast<uint8_t>(record[0]));
  r.body = std::string(record.substr(1));
  if (r.status != StoreStatus::kOk) r.message = base::WireReader(r.body, "store reply").str();
  return r;
}

std::optional<std::string> parse_refusal(std::string_view peeked) {
  const char* buf = peeked.data();
  const size_t n = peeked.size();
  uint32_t len = 0;
  if (n < sizeof len + 1) return std::nullopt;
  std::memcpy(&len, buf, sizeof len);
  // A zero length holds no status byte: the record is not a refusal (and len - 1 below
  // would read 4 GiB past the buffer).
  if (len == 0 || len > n - sizeof len ||
      static_cast<uint8_t>(buf[sizeof len]) != static_cast<uint8_t>(StoreStatus::kRefused)) {
    return std::nullopt;
  }
  try {
    return base::WireReader(std::string(buf + sizeof len + 1, len - 1), "store refusal").str();
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string reply_value(std::string_view body) {
  return base::WireReader(body, "store reply").str();
}

int64_t reply_counter(std::string_view body) { return base::WireReader(body, "store reply").i64(); }

bool reply_flag(std::string_view body) { return base::WireReader(body, "store reply").u8() != 0; }

}  // namespace weft::rendezvous
