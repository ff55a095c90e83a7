// connect_store: weft's TCP store client behind the public Store interface.
#include "weft/store.h"

#include <chrono>

#include "rendezvous/tcp_store_client.h"
#include "weft/error.h"

namespace weft {
namespace {

constexpr auto kDefaultConnectTimeout = std::chrono::seconds(300);

class StoreClient : public Store {
 public:
  explicit StoreClient(std::unique_ptr<rendezvous::TcpStoreClient> client)
      : client_(std::move(client)) {}

  void set(const std::string& key, const std::string& value) override {
    client_->set(key, value, base::Deadline::after(kDefaultConnectTimeout));
  }
  std::string get(const std::string& key, Timeout timeout) override {
    return client_->get(key, base::Deadline::after(timeout));
  }
  int64_t add(const std::string& key, int64_t delta) override {
    return client_->add(key, delta, base::Deadline::after(kDefaultConnectTimeout));
  }
  void wait(const std::vector<std::string>& keys, Timeout timeout) override {
    client_->wait(keys, base::Deadline::after(timeout));
  }
  bool check(const std::vector<std::string>& keys) override {
    return client_->check(keys, base::Deadline::after(kDefaultConnectTimeout));
  }
  bool delete_key(const std::string& key) override {
    return client_->delete_key(key, base::Deadline::after(kDefaultConnectTimeout));
  }
  std::string describe() const override { return client_->describe(); }

 private:
  std::unique_ptr<rendezvous::TcpStoreClient> client_;
};

}  // namespace

std::shared_ptr<Store> connect_store(const std::string& host, int port, Timeout timeout) {
  if (port <= 0 || port > 65535) {
    throw InvalidArgument("connect_store: port " + std::to_string(port) + " is outside [1, 65535]");
  }
  Timeout t = timeout.count() >= 0 ? timeout : Timeout(kDefaultConnectTimeout);
  return std::make_shared<StoreClient>(std::make_unique<rendezvous::TcpStoreClient>(
      host, static_cast<uint16_t>(port), base::Deadline::after(t)));
}

}  // namespace weft
