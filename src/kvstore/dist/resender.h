// Resender: PS_RESEND's reliable delivery, as ps-lite's. A sender numbers each
// tracked message per receiver (head.seq) and keeps it until the receiver acks
// that number; one not acked within PS_RESEND_TIMEOUT ms is sent again. A
// receiver acks every tracked message it gets (duplicates too, since the first
// ack may be the one that was lost) and drops the ones it has seen already.
#ifndef MXNET_KVSTORE_DIST_RESENDER_H_
#define MXNET_KVSTORE_DIST_RESENDER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "kvstore/dist/message.h"

namespace mxnet {
namespace kvstore {
namespace dist {

class Resender {
 public:
  /*! \brief resend(dest, msg) sends a copy again (from the resender's thread). */
  using ResendFn = std::function<void(int dest, const Message& msg)>;

  Resender(double timeout_ms, ResendFn resend);
  ~Resender();
  Resender(const Resender&) = delete;
  Resender& operator=(const Resender&) = delete;

  /*! \brief Whether messages of this type are numbered, acked and resent: all but
   *  the acks themselves, heartbeats (periodic anyway) and the hello of a node
   *  that has no id yet. */
  static bool Tracked(MsgType type);
  /*! \brief Number msg for dest and keep a copy (its payload is shared, not
   * copied) until acked. */
  void Track(int dest, Message* msg);
  /*! \brief dest acked its message numbered seq. */
  void OnAck(int dest, int32_t seq);
  /*! \brief Receiver side: true when message seq from sender was received before
   * (a duplicate to drop). Keeps per sender the lowest number not yet seen and
   * the numbers above it that were, so memory stays small. */
  bool SeenBefore(int sender, int32_t seq);
  /*! \brief Wait (at most max_ms) until every message is acked; false if not. A
   *  node leaving the job waits so that its last messages (a barrier's release)
   *  are not lost with it. */
  bool WaitUntilAcked(double max_ms);
  /*! \brief Messages sent and not acked yet. */
  size_t unacked() const;
  /*! \brief Messages sent again so far. */
  int64_t resent() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    Message msg;
    Clock::time_point sent;
  };
  struct Seen {
    int32_t lowest_missing{1};
    std::set<int32_t> above;
  };
  void Loop();

  const std::chrono::duration<double, std::milli> timeout_;
  ResendFn resend_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_{false};
  std::map<int, int32_t> next_seq_;                    // per receiver
  std::map<std::pair<int, int32_t>, Entry> unacked_;  // (receiver, seq)
  std::map<int, Seen> seen_;                           // per sender
  int64_t resent_{0};
  std::thread thread_;
};

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_RESENDER_H_
