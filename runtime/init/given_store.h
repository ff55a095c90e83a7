// GivenStore: a store the program passed to init_process_group (weft::Store, the public
// interface), seen as the rendezvous layer's Store. Deadlines become timeouts, and a
// failure of the program's store that is not a weft::Error becomes one naming the store.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rendezvous/store.h"
#include "weft/store.h"

namespace weft::runtime {

class GivenStore : public rendezvous::Store {
 public:
  explicit GivenStore(std::shared_ptr<weft::Store> store) : store_(std::move(store)) {}

  void set(const std::string& key, const std::string& value, base::Deadline deadline) override;
  std::string get(const std::string& key, base::Deadline deadline) override;
  int64_t add(const std::string& key, int64_t delta, base::Deadline deadline) override;
  void wait(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool check(const std::vector<std::string>& keys, base::Deadline deadline) override;
  bool delete_key(const std::string& key, base::Deadline deadline) override;
  std::string describe() const override { return store_->describe(); }

 private:
  std::shared_ptr<weft::Store> store_;
};

}  // namespace weft::runtime
