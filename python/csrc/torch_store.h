// TorchStore: torch.distributed's store (the TCPStore torchrun starts, a FileStore, a
// HashStore, each under the group's prefix) as the weft::Store the job joins through,
// so that weft needs no address or variable of its own under torch.
#pragma once

#include <weft/store.h>

#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

namespace weft::torch_backend {

class TorchStore : public weft::Store {
 public:
  explicit TorchStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key, Timeout timeout) override;
  int64_t add(const std::string& key, int64_t delta) override;
  void wait(const std::vector<std::string>& keys, Timeout timeout) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  std::string describe() const override { return "torch.distributed's store"; }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

}  // namespace weft::torch_backend
