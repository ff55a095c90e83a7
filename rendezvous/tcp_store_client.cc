#include "rendezvous/tcp_store_client.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <thread>

#include "base/env.h"
#include "base/log.h"
#include "base/wire.h"
#include "rendezvous/tcp_store_protocol.h"

namespace weft::rendezvous {
namespace {

// Waiting ops are timed by the server; the client allows this much longer for the reply
// before it concludes the server itself is gone.
constexpr auto kReplyGrace = std::chrono::seconds(10);

uint64_t timeout_ms(base::Deadline deadline) {
  if (deadline.is_never()) return kNoTimeout;
  return static_cast<uint64_t>(deadline.remaining().count());
}

std::string request(StoreOp op, base::Deadline deadline, const std::vector<std::string>& keys,
                    std::string value = "", int64_t delta = 0) {
  return encode_request({op, timeout_ms(deadline), keys, std::move(value), delta});
}

// The store would not take this connection (too many connections, no file descriptor
// left): final, whatever the operation.
class StoreRefused : public Error {
 public:
  explicit StoreRefused(const std::string& message) : Error(ErrorCode::kState, message) {}
};

// The server's reason, when it sent a kRefused record before closing the connection
// (which makes the client's send or receive fail before it reads the record).
std::optional<std::string> refusal_left_on(int fd) {
  char buf[4096];
  const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_PEEK);
  if (n <= 0) return std::nullopt;
  return parse_refusal(std::string_view(buf, static_cast<size_t>(n)));
}

const std::string kGreetingKey = "weft/greeting";  // checked, never set

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

TcpStoreClient::TcpStoreClient(const std::string& host, uint16_t port, base::Deadline deadline)
    : endpoint_(base::format_host_port(host, port)), port_(port) {
  auto addresses = base::resolve(host, port);
  std::string last_error;
  int attempts = 0;
  auto pause = std::chrono::milliseconds(10);
  while (true) {
    for (const auto& address : addresses) {
      ++attempts;
      try {
        fd_ =
            base::connect_to(address, deadline.min(base::Deadline::after(std::chrono::seconds(5))));
        WEFT_LOG(INFO) << "connected to the rendezvous store at " << address.to_string()
                       << " after " << attempts << " attempt(s)";
        break;
      } catch (const Error& e) {
        last_error = e.what();
      }
    }
    if (fd_) {
      greet(deadline);  // outside the retries: a refusal is final
      return;
    }
    if (deadline.expired()) break;
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(pause, deadline.remaining()));
    pause = std::min(pause * 2, std::chrono::milliseconds(500));
  }
  throw TimeoutError("could not reach the rendezvous store at " + endpoint_ + " (" +
                     std::to_string(attempts) + " attempts; last: " + last_error +
                     "); is rank 0 running, and are MASTER_ADDR/MASTER_PORT right?");
}

void TcpStoreClient::throw_not_a_store(const std::string& why) const {
  throw InvalidArgument("the service at " + endpoint_ + " is not a weft rendezvous store (" + why +
                        "): port " + std::to_string(port_) +
                        " seems to be used by something else on that host; choose another "
                        "MASTER_PORT");
}

void TcpStoreClient::greet(base::Deadline deadline) {
  auto token = base::env::get("WEFT_AUTH_TOKEN");
  const base::Deadline answer_by = deadline.min(base::Deadline::after(kGreetingTimeout));
  try {
    if (token) {
      call(request(StoreOp::kAuth, answer_by, {*token}), answer_by, "authenticate", true);
    } else {
      call(request(StoreOp::kCheck, answer_by, {kGreetingKey}), answer_by, "check", true);
    }
  } catch (const StoreRefused&) {
    throw;
  } catch (const StoreLost&) {
    throw;  // the store's process exited as this one arrived: the caller may join again
  } catch (const TimeoutError&) {
    if (deadline.expired()) throw;
    throw_not_a_store("it accepted the connection but did not answer within " +
                      std::to_string(kGreetingTimeout.count()) + " s");
  } catch (const InvalidArgument&) {
    throw;  // not a store: said so already
  } catch (const Error& e) {
    // A weft store with another token, or one that wants a token this process lacks:
    // most often the store of another job that took the port first.
    throw InvalidArgument(
        describe() + " refused this process" +
        (token ? "'s WEFT_AUTH_TOKEN" : ", which has no WEFT_AUTH_TOKEN") + " (" + e.what() +
        "): port " + std::to_string(port_) +
        " is most likely in use by another job on that host; choose another MASTER_PORT (if "
        "it is this job's store, give every process of the job the same WEFT_AUTH_TOKEN)");
  }
}

base::SocketAddress TcpStoreClient::local_address() const { return base::local_address(fd_.get()); }

std::string TcpStoreClient::call(const std::string& req, base::Deadline deadline,
                                 const std::string& op_name, bool exact) {
  return std::move(calls({req}, deadline, op_name, exact).front());
}

std::vector<std::string> TcpStoreClient::calls(const std::vector<std::string>& requests,
                                               base::Deadline deadline, const std::string& op_name,
                                               bool exact) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!fd_) throw StoreLost(describe() + ": connection lost by an earlier call");
  std::string what = describe() + " (" + op_name + ")";
  base::Deadline reply_deadline = deadline.is_never() || exact
                                      ? deadline
                                      : base::Deadline::after(deadline.remaining() + kReplyGrace);
  std::vector<std::string> replies;
  replies.reserve(requests.size());
  try {
    for (const std::string& req : requests) base::send_record(fd_.get(), req, reply_deadline, what);
    for (size_t i = 0; i < requests.size(); ++i) {
      replies.push_back(base::recv_record(fd_.get(), kMaxStoreRecord, reply_deadline, what));
    }
  } catch (const base::RecordTooLarge& e) {
    // A length no store sends: the bytes are not a weft store's.
    fd_.reset();
    throw_not_a_store("it sent a reply of " + std::to_string(e.bytes()) + " bytes");
  } catch (const Error& e) {
    std::optional<std::string> refusal = refusal_left_on(fd_.get());
    fd_.reset();  // the stream may be out of step now
    if (refusal) throw StoreRefused(what + ": the store refused this connection: " + *refusal);
    if (e.code() == ErrorCode::kPeer) {
      throw StoreLost(std::string(e.what()) + " (the process hosting the store may have exited)");
    }
    throw;
  }
  std::vector<std::string> bodies;
  bodies.reserve(replies.size());
  for (const std::string& reply : replies) {
    StoreReply r;
    try {
      r = parse_reply(reply);
    } catch (const Error& e) {
      fd_.reset();
      throw_not_a_store(std::string("its reply does not parse: ") + e.what());
    }
    if (r.status == StoreStatus::kRefused) {
      fd_.reset();
      throw StoreRefused(what + ": the store refused this connection: " + r.message);
    }
    if (r.status == StoreStatus::kTimedOut) {
      throw TimeoutError(what + ": timed out waiting for key(s): " + r.message);
    }
    if (r.status != StoreStatus::kOk) {
      throw Error(ErrorCode::kInternal, what + ": the store refused the request: " + r.message);
    }
    bodies.push_back(std::move(r.body));
  }
  return bodies;
}

void TcpStoreClient::set(const std::string& key, const std::string& value,
                         base::Deadline deadline) {
  call(request(StoreOp::kSet, deadline, {key}, value), deadline, "set " + key);
}

std::string TcpStoreClient::get(const std::string& key, base::Deadline deadline) {
  std::string body = call(request(StoreOp::kGet, deadline, {key}), deadline, "get " + key);
  return reply_value(body);
}

std::vector<std::string> TcpStoreClient::get_many(const std::vector<std::string>& keys,
                                                  base::Deadline deadline) {
  std::vector<std::string> values;
  values.reserve(keys.size());
  for (size_t first = 0; first < keys.size(); first += kBatch) {
    const size_t end = std::min(keys.size(), first + kBatch);
    std::vector<std::string> requests;
    for (size_t i = first; i < end; ++i) {
      requests.push_back(request(StoreOp::kGet, deadline, {keys[i]}));
    }
    const std::string what = end - first == 1 ? "get " + keys[first]
                                              : "get " + keys[first] + " and " +
                                                    std::to_string(end - first - 1) + " more keys";
    for (std::string& body : calls(requests, deadline, what)) {
      values.push_back(reply_value(body));
    }
  }
  return values;
}

int64_t TcpStoreClient::add(const std::string& key, int64_t delta, base::Deadline deadline) {
  std::string body =
      call(request(StoreOp::kAdd, deadline, {key}, "", delta), deadline, "add " + key);
  return reply_counter(body);
}

void TcpStoreClient::wait(const std::vector<std::string>& keys, base::Deadline deadline) {
  call(request(StoreOp::kWait, deadline, keys), deadline, "wait " + join_keys(keys));
}

bool TcpStoreClient::check(const std::vector<std::string>& keys, base::Deadline deadline) {
  std::string body = call(request(StoreOp::kCheck, deadline, keys), deadline, "check");
  return reply_flag(body);
}

bool TcpStoreClient::delete_key(const std::string& key, base::Deadline deadline) {
  std::string body = call(request(StoreOp::kDelete, deadline, {key}), deadline, "delete " + key);
  return reply_flag(body);
}

}  // namespace weft::rendezvous
