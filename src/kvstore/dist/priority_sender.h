// PrioritySender: how a dist_p3 worker sends its slices (MXNet 1.9.1's P3, after
// "Priority-based Parameter Propagation"): at most `window` slice requests are in
// flight (DMLC_PS_WATER_MARK); the rest wait in priority order, highest first
// and in order of issue within a priority, so the slices of a layer needed soon
// (Trainer pushes parameter i with priority -i) pass those of later layers
// already queued. A push leaves the window when the server has received it (its
// receipt: a sync answer waits for every worker), a pull when it is answered.
#ifndef MXNET_KVSTORE_DIST_PRIORITY_SENDER_H_
#define MXNET_KVSTORE_DIST_PRIORITY_SENDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "kvstore/dist/message.h"

namespace mxnet {
namespace kvstore {
namespace dist {

class PrioritySender {
 public:
  /*! \brief send(dest, msg): hand a message to the transport (must not block or
   *  call back into the sender). */
  using SendFn = std::function<void(int dest, Message&& msg)>;

  PrioritySender(int window, SendFn send);

  /*! \brief Queue a request (head.request_id and head.part identify its reply)
   * and send what the window allows. */
  void Enqueue(int priority, int dest, Message msg);
  /*! \brief A reply arrived: when it answers a request of ours, free its place
   *  and send the next ones. */
  void OnReply(int32_t request_id, int32_t part);
  /*! \brief The job failed: drop what waits (its requests fail elsewhere). */
  void Clear();

  size_t queued() const;
  size_t in_flight() const;

 private:
  struct Waiting {
    int dest;
    Message msg;
  };
  void Pump();  // with mu_ held

  const size_t window_;
  SendFn send_;
  mutable std::mutex mu_;
  uint64_t issued_{0};
  // Ordered by (-priority, issue number): begin() goes next.
  std::map<std::pair<int64_t, uint64_t>, Waiting> queue_;
  std::set<std::pair<int32_t, int32_t>> in_flight_;  // (request_id, part)
};

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_PRIORITY_SENDER_H_
