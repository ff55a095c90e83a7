// WireWriter / WireReader: the little binary encoding weft uses for control data
// (store requests, rendezvous records, link handshakes). Integers are fixed-width in
// host byte order (weft does not mix endianness within a job); strings carry a 32-bit
// length. A reader that runs past its input throws, so a truncated or hostile record is
// an error and never an out-of-bounds read.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "weft/error.h"

namespace weft::base {

class WireWriter {
 public:
  WireWriter& u8(uint8_t v) { return raw(&v, sizeof v); }
  WireWriter& u32(uint32_t v) { return raw(&v, sizeof v); }
  WireWriter& u64(uint64_t v) { return raw(&v, sizeof v); }
  WireWriter& i64(int64_t v) { return raw(&v, sizeof v); }
  WireWriter& str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    return raw(s.data(), s.size());
  }
  std::string take() { return std::move(out_); }

 private:
  WireWriter& raw(const void* p, size_t n) {
    out_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string out_;
};

class WireReader {
 public:
  // `what` names the record in errors, e.g. "store reply".
  WireReader(std::string_view in, const char* what) : in_(in), what_(what) {}

  uint8_t u8() { return fixed<uint8_t>(); }
  uint32_t u32() { return fixed<uint32_t>(); }
  uint64_t u64() { return fixed<uint64_t>(); }
  int64_t i64() { return fixed<int64_t>(); }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(in_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  template <typename T>
  T fixed() {
    need(sizeof(T));
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  void need(size_t n) {
    if (in_.size() - pos_ < n) {
      throw Error(ErrorCode::kInternal, std::string("malformed ") + what_ + ": truncated at byte " +
                                            std::to_string(pos_) + " of " +
                                            std::to_string(in_.size()));
    }
  }
  std::string_view in_;
  size_t pos_ = 0;
  const char* what_;
};

}  // namespace weft::base
