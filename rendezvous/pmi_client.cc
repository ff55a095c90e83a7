#include "rendezvous/pmi_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "base/env.h"
#include "weft/error.h"

namespace weft::rendezvous {
namespace {

// A reply line longer than this is garbage, not PMI: Hydra's own lines stay under a few
// KiB (values are at most vallen_max bytes).
constexpr size_t kMaxReplyLine = 1 << 20;

// Lines are quoted in messages up to this length.
constexpr size_t kMaxQuoted = 200;

std::string quoted(const std::string& text) {
  return "'" + (text.size() <= kMaxQuoted ? text : text.substr(0, kMaxQuoted) + "...") + "'";
}

// A whole decimal int, or nullopt ("", "12x", "99999999999" are not).
std::optional<int> parse_int(const std::string& text) {
  if (text.empty() || text.size() > 10) return std::nullopt;
  size_t i = text[0] == '-' ? 1 : 0;
  if (i == text.size()) return std::nullopt;
  long long value = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  if (text[0] == '-') value = -value;
  if (value < INT32_MIN || value > INT32_MAX) return std::nullopt;
  return static_cast<int>(value);
}

// A PMI_* variable as a number in [min, max]; nullopt when unset.
std::optional<int> int_variable(const char* name, int min, int max) {
  std::optional<std::string> text = base::env::get(name);
  if (!text) return std::nullopt;
  std::optional<int> value = parse_int(*text);
  if (!value || *value < min || *value > max) {
    throw InvalidArgument(std::string(name) + " '" + *text + "': expected an integer in [" +
                          std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return value;
}

// Waits without a deadline until `fd` is ready for `events`; for descriptors left in
// non-blocking mode by whoever created them.
void wait_ready(int fd, short events) {
  pollfd p{fd, events, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
}

}  // namespace

// One reply line, split into its key=value fields in order.
struct PmiClient::Reply {
  std::string line;
  std::vector<std::pair<std::string, std::string>> fields;

  const std::string* find(const std::string& key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }

  // Splits at spaces. A word without '=' continues the value before it, so a msg=...
  // with spaces in it (some process managers send them) survives whole.
  static Reply parse(std::string line) {
    Reply reply;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    reply.line = line;
    size_t at = 0;
    while (at < line.size()) {
      size_t end = line.find(' ', at);
      if (end == std::string::npos) end = line.size();
      std::string word = line.substr(at, end - at);
      at = end + 1;
      if (word.empty()) continue;
      size_t eq = word.find('=');
      if (eq == std::string::npos) {
        if (!reply.fields.empty()) reply.fields.back().second += " " + word;
        continue;
      }
      reply.fields.emplace_back(word.substr(0, eq), word.substr(eq + 1));
    }
    return reply;
  }
};

PmiClient::PmiClient(int fd) : fd_(fd), fd_number_(fd) {}

PmiClient::PmiClient(int fd, int rank, int size)
    : fd_(fd), fd_number_(fd), rank_(rank), size_(size) {
  if (size < 1 || rank < 0 || rank >= size) {
    fd_.release();  // not ours after all: the caller keeps it
    throw InvalidArgument("PmiClient: rank " + std::to_string(rank) + " and size " +
                          std::to_string(size) + " do not make 0 <= rank < size");
  }
}

std::optional<PmiClient> PmiClient::from_environment() {
  std::optional<int> fd = int_variable("PMI_FD", 0, INT32_MAX);
  if (!fd) return std::nullopt;
  int flags = fcntl(*fd, F_GETFD);
  if (flags < 0) {
    throw InvalidArgument("PMI_FD '" + std::to_string(*fd) +
                          "': not an open file descriptor in this process (" +
                          std::strerror(errno) + ")");
  }
  std::optional<int> size = int_variable("PMI_SIZE", 1, INT32_MAX);
  std::optional<int> rank = int_variable("PMI_RANK", 0, INT32_MAX);
  if (rank && size && *rank >= *size) {
    throw InvalidArgument("PMI_RANK '" + std::to_string(*rank) + "': not below PMI_SIZE '" +
                          std::to_string(*size) + "'");
  }
  fcntl(*fd, F_SETFD, flags | FD_CLOEXEC);
  PmiClient client(*fd);
  client.rank_ = rank.value_or(-1);
  client.size_ = size.value_or(-1);
  return client;
}

int PmiClient::rank() const {
  if (rank_ < 0) {
    throw Error(ErrorCode::kState,
                "PMI rank: unknown (PMI_RANK was not set, and the PMI-1 wire does not carry it)");
  }
  return rank_;
}

int PmiClient::size() const {
  if (size_ < 0) {
    throw Error(ErrorCode::kState,
                "PMI size: unknown (PMI_SIZE was not set, and the PMI-1 wire does not carry it)");
  }
  return size_;
}

void PmiClient::init() {
  if (initialized_ || finalized_) {
    throw Error(ErrorCode::kState, "PMI init: called twice");
  }
  call("PMI init", "cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
  Reply maxes = call("PMI get_maxes", "cmd=get_maxes", "maxes");
  // Each limit counts the terminating NUL of the process manager's buffers, so 2 is the
  // least that leaves room for one byte.
  for (auto [name, limit] : {std::pair<const char*, size_t*>{"keylen_max", &keylen_max_},
                             std::pair<const char*, size_t*>{"vallen_max", &vallen_max_}}) {
    const std::string* text = maxes.find(name);
    std::optional<int> value = text ? parse_int(*text) : std::nullopt;
    if (!value || *value < 2) {
      throw Error(ErrorCode::kPeer, std::string("PMI get_maxes: the process manager's reply ") +
                                        quoted(maxes.line) + " has no valid " + name);
    }
    *limit = static_cast<size_t>(*value);
  }
  Reply kvs = call("PMI get_my_kvsname", "cmd=get_my_kvsname", "my_kvsname");
  const std::string* name = kvs.find("kvsname");
  if (name == nullptr || name->empty()) {
    throw Error(ErrorCode::kPeer, "PMI get_my_kvsname: the process manager's reply " +
                                      quoted(kvs.line) + " names no kvsname");
  }
  kvsname_ = *name;
  initialized_ = true;
}

void PmiClient::put(const std::string& key, const std::string& value) {
  require_initialized("PMI put");
  check_token("PMI put", "key", key, max_key_length(), false);
  check_token("PMI put (key '" + key + "')", "value", value, max_value_length(), true);
  call("PMI put: key '" + key + "'",
       "cmd=put kvsname=" + kvsname_ + " key=" + key + " value=" + value, "put_result");
}

void PmiClient::barrier() {
  require_initialized("PMI barrier");
  call("PMI barrier", "cmd=barrier_in", "barrier_out");
}

std::string PmiClient::get(const std::string& key) {
  require_initialized("PMI get");
  check_token("PMI get", "key", key, max_key_length(), false);
  std::string op = "PMI get: key '" + key + "'";
  Reply reply = call(op, "cmd=get kvsname=" + kvsname_ + " key=" + key, "get_result");
  const std::string* value = reply.find("value");
  if (value == nullptr) {
    throw Error(ErrorCode::kPeer,
                op + ": the process manager's reply " + quoted(reply.line) + " has no value");
  }
  return *value;
}

void PmiClient::finalize() {
  require_initialized("PMI finalize");
  call("PMI finalize", "cmd=finalize", "finalize_ack");
  finalized_ = true;
  fd_.reset();
}

PmiClient::Reply PmiClient::call(const std::string& op, const std::string& request,
                                 const std::string& expected) {
  if (!fd_) {
    throw Error(ErrorCode::kState, op + ": PMI_FD (fd " + std::to_string(fd_number_) +
                                       ") is closed (after finalize() or an earlier failure)");
  }
  send_line(op, request + "\n");
  Reply reply = Reply::parse(read_line(op));
  const std::string* cmd = reply.find("cmd");
  if (cmd == nullptr || *cmd != expected) {
    fd_.reset();  // out of step with the process manager: nothing later can be trusted
    throw Error(ErrorCode::kPeer, op + ": the process manager answered " + quoted(reply.line) +
                                      " where cmd=" + expected + " was expected");
  }
  if (const std::string* rc = reply.find("rc"); rc != nullptr && *rc != "0") {
    const std::string* msg = reply.find("msg");
    throw Error(ErrorCode::kPeer, op + ": the process manager answered rc=" + *rc + ": " +
                                      (msg != nullptr ? *msg : "(no msg) " + quoted(reply.line)));
  }
  return reply;
}

void PmiClient::send_line(const std::string& op, const std::string& line) {
  size_t sent = 0;
  bool is_socket = true;
  while (sent < line.size()) {
    // send() with MSG_NOSIGNAL turns a closed peer into EPIPE rather than SIGPIPE; a
    // PMI_FD that is a pipe rather than a socket falls back to write().
    ssize_t n = is_socket ? ::send(fd_.get(), line.data() + sent, line.size() - sent, MSG_NOSIGNAL)
                          : ::write(fd_.get(), line.data() + sent, line.size() - sent);
    if (n >= 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    int error = errno;
    if (error == EINTR) continue;
    if (error == ENOTSOCK && is_socket) {
      is_socket = false;
      continue;
    }
    if (error == EAGAIN || error == EWOULDBLOCK) {
      wait_ready(fd_.get(), POLLOUT);
      continue;
    }
    fd_.reset();
    if (error == EPIPE || error == ECONNRESET) {
      throw Error(ErrorCode::kPeer,
                  op + ": the process manager closed PMI_FD (fd " + std::to_string(fd_number_) +
                      ") before the request was sent; it has probably " + "ended the job");
    }
    throw Error(ErrorCode::kInternal, op + ": writing to PMI_FD (fd " + std::to_string(fd_number_) +
                                          "): " + std::strerror(error));
  }
}

std::string PmiClient::read_line(const std::string& op) {
  char buffer[4096];
  while (true) {
    size_t newline = received_.find('\n');
    if (newline != std::string::npos) {
      std::string line = received_.substr(0, newline);
      received_.erase(0, newline + 1);
      return line;
    }
    if (received_.size() > kMaxReplyLine) {
      fd_.reset();
      throw Error(ErrorCode::kPeer, op + ": the process manager's reply is longer than " +
                                        std::to_string(kMaxReplyLine) +
                                        " bytes without a newline: " + quoted(received_));
    }
    ssize_t n = ::read(fd_.get(), buffer, sizeof buffer);
    if (n > 0) {
      received_.append(buffer, static_cast<size_t>(n));
      continue;
    }
    int error = n == 0 ? 0 : errno;
    if (error == EINTR) continue;
    if (error == EAGAIN || error == EWOULDBLOCK) {
      wait_ready(fd_.get(), POLLIN);
      continue;
    }
    fd_.reset();
    if (error == 0 || error == ECONNRESET) {
      std::string partial =
          received_.empty() ? "" : " after the partial reply " + quoted(received_);
      received_.clear();
      throw Error(ErrorCode::kPeer, op + ": the process manager closed PMI_FD (fd " +
                                        std::to_string(fd_number_) + ") before replying" + partial +
                                        "; it has probably ended the job");
    }
    throw Error(ErrorCode::kInternal, op + ": reading from PMI_FD (fd " +
                                          std::to_string(fd_number_) +
                                          "): " + std::strerror(error));
  }
}

void PmiClient::require_initialized(const std::string& op) const {
  if (finalized_) throw Error(ErrorCode::kState, op + ": called after finalize()");
  if (!initialized_) throw Error(ErrorCode::kState, op + ": called before init()");
}

void PmiClient::check_token(const std::string& op, const char* kind, const std::string& token,
                            size_t max_length, bool allow_empty) const {
  if (token.empty() && !allow_empty) throw InvalidArgument(op + ": the " + kind + " is empty");
  for (size_t i = 0; i < token.size(); ++i) {
    auto c = static_cast<unsigned char>(token[i]);
    if (c <= ' ' || c == 0x7f || c == '=') {
      throw InvalidArgument(op + ": " + kind + " " + quoted(token) + " holds character " +
                            std::to_string(c) + " at offset " + std::to_string(i) +
                            "; PMI allows no '=', space or control characters (hex-encode it)");
    }
  }
  if (token.size() > max_length) {
    throw InvalidArgument(op + ": " + kind + " " + quoted(token) + " has " +
                          std::to_string(token.size()) + " bytes; the process manager takes " +
                          std::to_string(max_length) + " at most");
  }
}

}  // namespace weft::rendezvous
