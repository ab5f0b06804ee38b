// PrioritySender; see priority_sender.h.
#include "kvstore/dist/priority_sender.h"

#include <dmlc/logging.h>

namespace mxnet {
namespace kvstore {
namespace dist {

PrioritySender::PrioritySender(int window, SendFn send)
    : window_(static_cast<size_t>(window)), send_(std::move(send)) {
  CHECK_GT(window, 0) << "DMLC_PS_WATER_MARK (slice requests a dist_p3 worker keeps in flight) "
                         "must be at least 1, given "
                      << window;
}

void PrioritySender::Enqueue(int priority, int dest, Message msg) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.emplace(std::make_pair(-static_cast<int64_t>(priority), issued_++),
                 Waiting{dest, std::move(msg)});
  Pump();
}

void PrioritySender::OnReply(int32_t request_id, int32_t part) {
  std::lock_guard<std::mutex> lock(mu_);
  if (in_flight_.erase({request_id, part}) == 0) return;
  Pump();
}

void PrioritySender::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.clear();
  in_flight_.clear();
}

size_t PrioritySender::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t PrioritySender::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_flight_.size();
}

void PrioritySender::Pump() {
  // Sent under the lock, so requests leave in the order chosen here.
  while (in_flight_.size() < window_ && !queue_.empty()) {
    auto next = queue_.begin();
    Waiting w = std::move(next->second);
    queue_.erase(next);
    in_flight_.insert({w.msg.head.request_id, w.msg.head.part});
    send_(w.dest, std::move(w.msg));
  }
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
