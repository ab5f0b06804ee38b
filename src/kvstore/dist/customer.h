// Customer: a worker's requests to the servers in flight, each completed when every
// part has been answered (on the I/O thread) or all at once when the job fails; and
// how one part of a request is sent (dist_p3 through its PrioritySender).
#ifndef MXNET_KVSTORE_DIST_CUSTOMER_H_
#define MXNET_KVSTORE_DIST_CUSTOMER_H_

#include <dmlc/logging.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

#include "kvstore/dist/message.h"
#include "kvstore/dist/postoffice.h"
#include "kvstore/dist/priority_sender.h"
#include "mxnet/engine.h"

namespace mxnet {
namespace kvstore {
namespace dist {

class Customer {
 public:
  using PartFn = std::function<std::string(const Message&)>;  // "" or an error
  using DoneFn = std::function<void(const std::string& error)>;

  /*! \brief A request of `parts` parts; on_part reads each reply (may be null), done runs
   *  once with "" or the first error. Returns -1 (after calling done) when the job failed. */
  int NewRequest(int parts, PartFn on_part, DoneFn done) {
    std::unique_lock<std::mutex> lock(mu_);
    if (!failure_.empty()) {
      const std::string why = failure_;
      lock.unlock();
      done(why);
      return -1;
    }
    const int id = next_id_++;
    pending_[id] = Pending{parts, std::move(on_part), std::move(done), ""};
    return id;
  }

  void OnReply(const Message& msg) {
    std::unique_lock<std::mutex> lock(mu_);
    auto it = pending_.find(msg.head.request_id);
    if (it == pending_.end()) {
      LOG(ERROR) << "parameter server: dropped a reply to unknown request " << msg.head.request_id
                 << " from node " << msg.head.sender;
      return;
    }
    Pending& p = it->second;
    if (msg.head.flags & kFlagError) {
      p.error = msg.body;
    } else if (p.on_part && p.error.empty()) {
      p.error = p.on_part(msg);
    }
    if (--p.remaining > 0) return;
    Pending done = std::move(p);
    pending_.erase(it);
    lock.unlock();
    done.done(done.error);
  }

  void FailAll(const std::string& why) {
    std::unordered_map<int, Pending> failed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      failure_ = why;
      failed.swap(pending_);
    }
    for (auto& kv : failed) kv.second.done(why);
  }

 private:
  struct Pending {
    int remaining;
    PartFn on_part;
    DoneFn done;
    std::string error;
  };
  std::mutex mu_;
  std::unordered_map<int, Pending> pending_;
  int next_id_{0};
  std::string failure_;
};

/*! \brief A push or pull (type) of part `part` of key, for request id. */
inline Message PartRequest(MsgType type, int request_id, int key, int part, int dtype,
                           int64_t num_elems, int32_t flags = 0) {
  Message m;
  m.head.type = type;
  m.head.request_id = request_id;
  m.head.key = key;
  m.head.part = part;
  m.head.dtype = dtype;
  m.head.num_elems = num_elems;
  m.head.flags = flags;
  return m;
}

/*! \brief Finish an engine op with "" (success) or an error text. */
inline void CompleteOp(const CallbackOnComplete& cb, const std::string& error) {
  if (error.empty()) {
    cb();
  } else {
    dmlc::Error e(error);
    cb(&e);
  }
}

/*! \brief Send one part of a push or pull: dist_p3 queues it by priority, the others send
 *  it at once (a failed job fails the request through the customer, so a send's throw
 *  after the failure is dropped here). */
inline void SendPart(PostOffice* po, const std::shared_ptr<PrioritySender>& sender, int priority,
                     int dest, Message m) {
  if (sender) {
    sender->Enqueue(priority, dest, std::move(m));
    return;
  }
  try {
    po->Send(dest, std::move(m));
  } catch (const dmlc::Error&) {
  }
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_CUSTOMER_H_
