// Store: the key-value service through which a job's ranks find each other. weft brings
// its own (the TCP store rank 0 hosts, a rendezvous file); a program that already has
// one, such as a framework's store shared by its process groups, implements this
// interface over it and passes it to init_process_group.
//
// Every rank of one job passes a store in which the same keys mean the same thing, and
// that no earlier job has used: a namespace of its own inside a shared store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weft/timeout.h"

namespace weft {

class Store {
 public:
  virtual ~Store() = default;

  virtual void set(const std::string& key, const std::string& value) = 0;
  // The value of `key`, waiting until some rank sets it; TimeoutError after `timeout`.
  virtual std::string get(const std::string& key, Timeout timeout) = 0;
  // Adds `delta` to the integer at `key` (absent: 0) and returns the new value.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Waits until every key exists; TimeoutError after `timeout`.
  virtual void wait(const std::vector<std::string>& keys, Timeout timeout) = 0;
  // Whether every key exists now; never waits for them.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // Removes `key`; false if it did not exist.
  virtual bool delete_key(const std::string& key) = 0;
  // What the store is, for error messages: "TCPStore at 10.0.0.1:29500".
  virtual std::string describe() const = 0;
};

// A client of weft's own TCP store: the one rank 0 hosts for `tcp://` and `env://`, or
// weftrun's (which passes it to its ranks as MASTER_ADDR and MASTER_PORT). It sends
// WEFT_AUTH_TOKEN when set, as weft's ranks do. Retries until `timeout` (default 300 s)
// while nothing answers; fails naming host:port, and says so when what answers is not a
// weft store.
std::shared_ptr<Store> connect_store(const std::string& host, int port,
                                     Timeout timeout = kDefaultTimeout);

}  // namespace weft
