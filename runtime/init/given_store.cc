#include "runtime/init/given_store.h"

#include <algorithm>
#include <exception>

#include "weft/error.h"

namespace weft::runtime {
namespace {

// At least 1 ms: a store may read a zero timeout as "wait forever".
Timeout timeout_of(base::Deadline deadline) { return std::max(deadline.remaining(), Timeout(1)); }

// Runs one call of the program's store: weft's own errors pass unchanged, anything else
// becomes an Error naming the store and the call, so the join reports it like a broken
// connection to weft's store.
template <typename Call>
auto guarded(const weft::Store& store, const char* what, const std::string& key, Call call) {
  try {
    return call();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kPeer,
                store.describe() + ": " + what + "(" + key + ") failed: " + e.what());
  } catch (...) {
    throw Error(ErrorCode::kPeer, store.describe() + ": " + what + "(" + key +
                                      ") failed with an exception that is not a std::exception");
  }
}

}  // namespace

void GivenStore::set(const std::string& key, const std::string& value, base::Deadline) {
  guarded(*store_, "set", key, [&] {
    store_->set(key, value);
    return 0;
  });
}

std::string GivenStore::get(const std::string& key, base::Deadline deadline) {
  return guarded(*store_, "get", key, [&] { return store_->get(key, timeout_of(deadline)); });
}

int64_t GivenStore::add(const std::string& key, int64_t delta, base::Deadline) {
  return guarded(*store_, "add", key, [&] { return store_->add(key, delta); });
}

void GivenStore::wait(const std::vector<std::string>& keys, base::Deadline deadline) {
  guarded(*store_, "wait", keys.empty() ? "" : keys.front(), [&] {
    store_->wait(keys, timeout_of(deadline));
    return 0;
  });
}

bool GivenStore::check(const std::vector<std::string>& keys, base::Deadline) {
  return guarded(*store_, "check", keys.empty() ? "" : keys.front(),
                 [&] { return store_->check(keys); });
}

bool GivenStore::delete_key(const std::string& key, base::Deadline) {
  return guarded(*store_, "delete_key", key, [&] { return store_->delete_key(key); });
}

}  // namespace weft::runtime
