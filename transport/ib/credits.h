// Credits: how many more messages one end of a verbs link may send that consume a
// receive at the other end (SENDs, and the WRITE_WITH_IMM that ends a transfer), so
// that none ever finds the receive queue empty: a receiver-not-ready error is fatal
// with the rnr_retry weft sets, so a mistake here shows at once instead of stalling.
//
// Each end starts with the receives the other posted for it. A receiver posts each
// receive again once its message is consumed and reports the running total of receives
// it has posted: on every SEND it makes (piggybacked), and in a credit message of its
// own when it owes a quarter of them, or when the sender may be stuck (it has seen the
// sender use up all but one of what it reported). Every message but the credit message
// needs two credits to go: the last one is kept for a credit message, so both ends can
// always return credit even when both only send, and neither can wait for the other
// for ever.
#pragma once

#include <algorithm>
#include <cstdint>

namespace weft::transport::ib {

class Credits {
 public:
  // `mine`: the receives this end keeps posted for the peer; `peers`: the peer's for it.
  Credits(uint64_t mine, uint64_t peers)
      : peer_posted_(peers),
        posted_(mine),
        reported_(mine),
        threshold_(std::max<uint64_t>(1, mine / 4)) {}

  // Sending.
  uint64_t available() const { return peer_posted_ - used_; }
  bool may_send() const { return available() >= 2; }
  bool may_send_credit() const { return available() >= 1; }
  void use() { ++used_; }
  // The peer reports `total` receives posted for this end so far.
  void peer_reported(uint64_t total) { peer_posted_ = std::max(peer_posted_, total); }

  // Receiving.
  void consumed() { ++consumed_; }  // a message of the peer took one of our receives
  void posted_again() { ++posted_; }
  // The total to report now, on a message about to go.
  uint64_t report() {
    reported_ = posted_;
    return posted_;
  }
  uint64_t owed() const { return posted_ - reported_; }
  // Whether a credit message should go now, there being no other message to carry it.
  bool should_return() const {
    const uint64_t peer_left = reported_ - consumed_;  // at most what the peer has left
    return owed() > 0 && (owed() >= threshold_ || peer_left <= 1);
  }

 private:
  uint64_t peer_posted_;  // receives the peer posted for us, as far as we know
  uint64_t used_ = 0;     // messages we sent that take one
  uint64_t posted_;       // receives we posted for the peer
  uint64_t reported_;     // the total the peer has been told
  uint64_t consumed_ = 0;
  uint64_t threshold_;
};

}  // namespace weft::transport::ib
