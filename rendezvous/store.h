// Store: the key-value service ranks use to find each other. Every call takes a
// deadline; calls that wait (get, wait) throw TimeoutError naming the keys still missing.
// Implementations: TcpStoreClient (talks to a TcpStoreServer), PrefixStore (a namespace
// inside another store).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/deadline.h"
#include "weft/error.h"

namespace weft::rendezvous {

// The connection to the store broke (its host process exited or closed it). A rank
// still joining may reconnect: the store may have been restarted by a new job.
class StoreLost : public Error {
 public:
  explicit StoreLost(const std::string& message) : Error(ErrorCode::kPeer, message) {}
};

class Store {
 public:
  virtual ~Store() = default;

  virtual void set(const std::string& key, const std::string& value, base::Deadline deadline) = 0;
  // The value of `key`, waiting until some process sets it.
  virtual std::string get(const std::string& key, base::Deadline deadline) = 0;
  // The values of `keys`, in order, each waited for as get() waits. A store that can
  // ask for many at once (TcpStoreClient: one round trip per batch) does: a rank of a
  // 256-rank host reads 255 peers' keys at init.
  virtual std::vector<std::string> get_many(const std::vector<std::string>& keys,
                                            base::Deadline deadline) {
    std::vector<std::string> values;
    values.reserve(keys.size());
    for (const std::string& key : keys) values.push_back(get(key, deadline));
    return values;
  }
  // Adds `delta` to the integer at `key` (absent: 0) and returns the new value.
  virtual int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) = 0;
  // Waits until every key exists.
  virtual void wait(const std::vector<std::string>& keys, base::Deadline deadline) = 0;
  // Whether every key exists now; never waits for them.
  virtual bool check(const std::vector<std::string>& keys, base::Deadline deadline) = 0;
  // Removes `key`; false if it did not exist.
  virtual bool delete_key(const std::string& key, base::Deadline deadline) = 0;

  // e.g. "store at 127.0.0.1:29500", for error messages.
  virtual std::string describe() const = 0;
};

// Keys of `inner`, seen with `prefix + "/"` in front: lets several groups or jobs share
// one store without colliding.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, Store& inner) : prefix_(std::move(prefix) + "/"), inner_(inner) {}

  void set(const std::string& key, const std::string& value, base::Deadline deadline) override {
    inner_.set(prefix_ + key, value, deadline);
  }
  std::string get(const std::string& key, base::Deadline deadline) override {
    return inner_.get(prefix_ + key, deadline);
  }
  std::vector<std::string> get_many(const std::vector<std::string>& keys,
                                    base::Deadline deadline) override {
    return inner_.get_many(prefixed(keys), deadline);
  }
  int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) override {
    return inner_.add(prefix_ + key, delta, deadline);
  }
  void wait(const std::vector<std::string>& keys, base::Deadline deadline) override {
    inner_.wait(prefixed(keys), deadline);
  }
  bool check(const std::vector<std::string>& keys, base::Deadline deadline) override {
    return inner_.check(prefixed(keys), deadline);
  }
  bool delete_key(const std::string& key, base::Deadline deadline) override {
    return inner_.delete_key(prefix_ + key, deadline);
  }
  std::string describe() const override { return inner_.describe(); }

 private:
  std::vector<std::string> prefixed(const std::vector<std::string>& keys) const {
    std::vector<std::string> out;
    out.reserve(keys.size());
    for (const auto& k : keys) out.push_back(prefix_ + k);
    return out;
  }
  std::string prefix_;
  Store& inner_;
};

}  // namespace weft::rendezvous
