// Resender; see resender.h.
#include "kvstore/dist/resender.h"

#include <dmlc/logging.h>

#include <vector>

namespace mxnet {
namespace kvstore {
namespace dist {

Resender::Resender(double timeout_ms, ResendFn resend)
    : timeout_(timeout_ms), resend_(std::move(resend)) {
  CHECK_GT(timeout_ms, 0) << "PS_RESEND_TIMEOUT must be a positive number of milliseconds, given "
                          << timeout_ms;
  thread_ = std::thread([this] { Loop(); });
}

Resender::~Resender() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

bool Resender::Tracked(MsgType type) {
  return type != MsgType::kAck && type != MsgType::kAddNode && type != MsgType::kHeartbeat &&
         type != MsgType::kHeartbeatAck;
}

void Resender::Track(int dest, Message* msg) {
  std::lock_guard<std::mutex> lock(mu_);
  msg->head.seq = ++next_seq_[dest];
  unacked_[{dest, msg->head.seq}] = Entry{*msg, Clock::now()};
}

void Resender::OnAck(int dest, int32_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  if (unacked_.erase({dest, seq}) != 0 && unacked_.empty()) cv_.notify_all();
}

bool Resender::WaitUntilAcked(double max_ms) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::duration<double, std::milli>(max_ms),
                      [this] { return unacked_.empty(); });
}

bool Resender::SeenBefore(int sender, int32_t seq) {
  std::lock_guard<std::mutex> lock(mu_);
  Seen& s = seen_[sender];
  if (seq < s.lowest_missing || !s.above.insert(seq).second) return true;
  while (!s.above.empty() && *s.above.begin() == s.lowest_missing) {
    s.above.erase(s.above.begin());
    ++s.lowest_missing;
  }
  return false;
}

size_t Resender::unacked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return unacked_.size();
}

int64_t Resender::resent() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resent_;
}

void Resender::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, timeout_ / 2, [this] { return stop_; });
    if (stop_) break;
    const auto now = Clock::now();
    std::vector<std::pair<int, Message>> again;
    for (auto& kv : unacked_) {
      if (now - kv.second.sent < timeout_) continue;
      kv.second.sent = now;
      again.emplace_back(kv.first.first, kv.second.msg);
    }
    resent_ += static_cast<int64_t>(again.size());
    lock.unlock();
    for (auto& d : again) resend_(d.first, d.second);
    lock.lock();
  }
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
