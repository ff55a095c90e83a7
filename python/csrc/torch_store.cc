#include "torch_store.h"

#include <c10/util/Exception.h>
#include <weft/error.h>

namespace weft::torch_backend {

void TorchStore::set(const std::string& key, const std::string& value) {
  store_->set(key, std::vector<uint8_t>(value.begin(), value.end()));
}

std::string TorchStore::get(const std::string& key, Timeout timeout) {
  wait({key}, timeout);
  std::vector<uint8_t> value = store_->get(key);
  return std::string(value.begin(), value.end());
}

int64_t TorchStore::add(const std::string& key, int64_t delta) { return store_->add(key, delta); }

void TorchStore::wait(const std::vector<std::string>& keys, Timeout timeout) {
  try {
    // c10d reads a zero timeout as "no timeout": ask for at least 1 ms.
    store_->wait(keys, std::max(timeout, Timeout(1)));
  } catch (const c10::DistStoreError& e) {
    // c10d reports a wait that ran out of time as a DistStoreError; weft's join tells
    // timeouts apart (it names the ranks that did not arrive).
    const std::string what = e.what_without_backtrace();
    if (what.find("imeout") != std::string::npos || what.find("imed out") != std::string::npos) {
      throw TimeoutError(describe() + ": waiting for " + keys.front() + ": " + what);
    }
    throw;
  }
}

bool TorchStore::check(const std::vector<std::string>& keys) { return store_->check(keys); }

bool TorchStore::delete_key(const std::string& key) { return store_->deleteKey(key); }

}  // namespace weft::torch_backend
