// Van: moves Messages between the nodes of a job over ZeroMQ. One I/O thread
// owns every socket: a ROUTER bound on this node's port receives, one DEALER
// per peer sends; other threads hand it messages through an inproc socket, so
// Send is thread-safe and never blocks.
#ifndef MXNET_KVSTORE_DIST_VAN_H_
#define MXNET_KVSTORE_DIST_VAN_H_

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kvstore/dist/message.h"
#include "kvstore/dist/resender.h"

namespace mxnet {
namespace kvstore {
namespace dist {

/*! \brief Delivery settings (PS_RESEND, PS_RESEND_TIMEOUT, PS_DROP_MSG). */
struct VanOptions {
  bool resend{false};              // number, ack and resend messages (resender.h)
  double resend_timeout_ms{1000};  // resend what is not acked after this long
  int drop_percent{0};             // testing: drop this share of received messages
  static VanOptions FromEnv();
};

class Van {
 public:
  /*! \brief Called on the I/O thread for each well-formed message received. */
  using Handler = std::function<void(Message&&)>;

  /*! \brief secret: the job's DMLC_PS_SECRET ("" for none). Messages carry a token derived
   *  from it; one with another token is dropped and logged. */
  explicit Van(const std::string& secret = "", const VanOptions& options = VanOptions());
  ~Van();
  Van(const Van&) = delete;
  Van& operator=(const Van&) = delete;

  /*! \brief Listen on port (0: any free port) of every interface; returns the
   * port. Throws dmlc::Error naming the port when it is in use. */
  int Bind(int port);
  /*! \brief Start the I/O thread; handler sees every message received from then
   * on. */
  void Start(Handler handler);
  /*! \brief Open (asynchronously) the connection to node id at host:port. */
  void Connect(int id, const std::string& host, int port);
  /*! \brief Queue msg for node id (connected first); the payload is sent
   * without a copy. */
  void Send(int id, Message msg);
  /*! \brief Stop the I/O thread and close the sockets (queued messages are
   * dropped). */
  void Stop();
  /*! \brief The resender (PS_RESEND), or nullptr. */
  const Resender* resender() const { return resender_.get(); }
  /*! \brief Received messages dropped on purpose so far (PS_DROP_MSG). */
  int64_t dropped() const { return dropped_; }

 private:
  void Loop();
  // Whether a received message goes on to the handler: drops (PS_DROP_MSG), acks and
  // duplicates (PS_RESEND) stop here. Runs on the I/O thread; acks through dealer.
  bool Admit(const Message& msg, void* dealer);
  std::string Frame(const MsgHeader& head, const std::string& body) const;
  void SendToThread(int dest, const std::string& frame, const Message* msg);

  void* ctx_{nullptr};
  void* router_{nullptr};
  void* inbox_{nullptr};   // inproc PULL, read by the I/O thread
  void* outbox_{nullptr};  // inproc PUSH, written by Send under outbox_mu_
  std::mutex outbox_mu_;
  std::thread thread_;
  Handler handler_;
  bool started_{false};
  uint64_t token_{0};
  int rejected_{0};
  VanOptions options_;
  std::unique_ptr<Resender> resender_;
  std::atomic<int64_t> dropped_{0};
};

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_VAN_H_
