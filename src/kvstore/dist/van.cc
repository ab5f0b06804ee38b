// Van over ZeroMQ; see van.h. Frames on the wire: [header+body][payload] (the
// ROUTER adds the peer identity in front). Frames on the inproc queue:
// [dest][header+body][payload], where dest -1 asks the I/O thread to connect
// ("id host port") and -2 to stop. With PS_RESEND the I/O thread acks each
// numbered message it receives and drops duplicates (resender.h); PS_DROP_MSG
// drops received messages on purpose, to test that.
#include "kvstore/dist/van.h"

#include <dmlc/logging.h>
#include <zmq.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <sstream>
#include <unordered_map>

#include "common/env.h"

namespace mxnet {
namespace kvstore {
namespace dist {
namespace {

constexpr int kDestConnect = -1;
constexpr int kDestStop = -2;

void SetCommonOptions(void* socket) {
  int zero = 0;
  zmq_setsockopt(socket, ZMQ_LINGER, &zero, sizeof(zero));
  zmq_setsockopt(socket, ZMQ_SNDHWM, &zero, sizeof(zero));  // never drop, never block
  zmq_setsockopt(socket, ZMQ_RCVHWM, &zero, sizeof(zero));
}

void FreePayloadOwner(void* /*data*/, void* hint) {
  std::unique_ptr<std::shared_ptr<void>> owner(static_cast<std::shared_ptr<void>*>(hint));
}

bool HasMore(void* socket) {
  int more = 0;
  size_t len = sizeof(more);
  zmq_getsockopt(socket, ZMQ_RCVMORE, &more, &len);
  return more != 0;
}

void Drain(void* socket) {
  while (HasMore(socket)) {
    zmq_msg_t m;
    zmq_msg_init(&m);
    zmq_msg_recv(&m, socket, 0);
    zmq_msg_close(&m);
  }
}

// Move one frame from socket `from` to `to`, keeping the more flag.
void ForwardFrame(void* from, void* to) {
  zmq_msg_t m;
  zmq_msg_init(&m);
  zmq_msg_recv(&m, from, 0);
  const bool more = HasMore(from);
  if (to != nullptr) {
    zmq_msg_send(&m, to, more ? ZMQ_SNDMORE : 0);
  }
  zmq_msg_close(&m);
  if (more) ForwardFrame(from, to);
}

// FNV-1a, 64 bits, never 0: the token a job's messages carry for its secret.
uint64_t SecretToken(const std::string& secret) {
  if (secret.empty()) return 0;
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : secret) h = (h ^ c) * 1099511628211ull;
  return h == 0 ? 1 : h;
}

}  // namespace

VanOptions VanOptions::FromEnv() {
  VanOptions o;
  o.resend = env::GetBool("PS_RESEND");
  o.resend_timeout_ms = env::GetFloat("PS_RESEND_TIMEOUT");
  o.drop_percent = static_cast<int>(env::GetInt("PS_DROP_MSG"));
  CHECK(o.drop_percent >= 0 && o.drop_percent < 100)
      << "PS_DROP_MSG must be a percentage in [0, 100), given " << o.drop_percent;
  return o;
}

Van::Van(const std::string& secret, const VanOptions& options)
    : token_(SecretToken(secret)), options_(options) {
  static std::atomic<int> counter{0};
  ctx_ = zmq_ctx_new();
  CHECK(ctx_ != nullptr) << "parameter server: zmq_ctx_new failed: " << zmq_strerror(errno);
  router_ = zmq_socket(ctx_, ZMQ_ROUTER);
  SetCommonOptions(router_);
  const std::string inproc = "inproc://mxnet-van-" + std::to_string(counter++);
  inbox_ = zmq_socket(ctx_, ZMQ_PULL);
  SetCommonOptions(inbox_);
  CHECK_EQ(zmq_bind(inbox_, inproc.c_str()), 0) << zmq_strerror(errno);
  outbox_ = zmq_socket(ctx_, ZMQ_PUSH);
  SetCommonOptions(outbox_);
  CHECK_EQ(zmq_connect(outbox_, inproc.c_str()), 0) << zmq_strerror(errno);
}

Van::~Van() {
  Stop();
  resender_.reset();  // its thread may still send into outbox_: stopped before outbox_ closes
  if (outbox_) zmq_close(outbox_);
  if (!started_) {
    if (inbox_) zmq_close(inbox_);
    if (router_) zmq_close(router_);
  }
  if (ctx_) zmq_ctx_term(ctx_);
}

int Van::Bind(int port) {
  const std::string addr = port > 0 ? "tcp://*:" + std::to_string(port) : std::string("tcp://*:*");
  if (zmq_bind(router_, addr.c_str()) != 0) {
    const int err = errno;
    LOG(FATAL) << "parameter server: cannot listen on port " << (port > 0 ? port : 0) << ": "
               << zmq_strerror(err)
               << (err == EADDRINUSE ? " (the port is in use: pick another DMLC_PS_ROOT_PORT or "
                                       "end the process holding it)"
                                     : "");
  }
  char endpoint[256];
  size_t len = sizeof(endpoint);
  zmq_getsockopt(router_, ZMQ_LAST_ENDPOINT, endpoint, &len);
  const char* colon = std::strrchr(endpoint, ':');
  CHECK(colon != nullptr) << "parameter server: unexpected endpoint " << endpoint;
  return std::atoi(colon + 1);
}

void Van::Start(Handler handler) {
  handler_ = std::move(handler);
  if (options_.resend) {
    resender_ = std::make_unique<Resender>(
        options_.resend_timeout_ms, [this](int dest, const Message& msg) {
          SendToThread(dest, Frame(msg.head, msg.body), &msg);
        });
  }
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void Van::SendToThread(int dest, const std::string& frame, const Message* msg) {
  std::lock_guard<std::mutex> lock(outbox_mu_);
  const bool has_payload = msg != nullptr && msg->payload_size > 0;
  zmq_send(outbox_, &dest, sizeof(dest), ZMQ_SNDMORE);
  zmq_send(outbox_, frame.data(), frame.size(), has_payload ? ZMQ_SNDMORE : 0);
  if (has_payload) {
    zmq_msg_t m;
    auto owner = std::make_unique<std::shared_ptr<void>>(msg->payload_owner);
    zmq_msg_init_data(&m, const_cast<char*>(msg->payload), msg->payload_size, FreePayloadOwner,
                      owner.release());
    zmq_msg_send(&m, outbox_, 0);
  }
}

void Van::Connect(int id, const std::string& host, int port) {
  SendToThread(kDestConnect, std::to_string(id) + " " + host + " " + std::to_string(port), nullptr);
}

std::string Van::Frame(const MsgHeader& head, const std::string& body) const {
  MsgHeader h = head;
  h.magic = kMagic;
  h.body_len = body.size();
  h.auth = token_;
  std::string frame(sizeof(MsgHeader) + body.size(), '\0');
  std::memcpy(&frame[0], &h, sizeof(MsgHeader));
  std::memcpy(&frame[sizeof(MsgHeader)], body.data(), body.size());
  return frame;
}

void Van::Send(int id, Message msg) {
  msg.head.recver = id;
  if (resender_ && Resender::Tracked(msg.head.type)) resender_->Track(id, &msg);
  SendToThread(id, Frame(msg.head, msg.body), &msg);
}

bool Van::Admit(const Message& msg, void* dealer) {
  if (options_.drop_percent > 0 && msg.head.type != MsgType::kAddNode) {
    static thread_local std::mt19937 rng(std::random_device{}());
    if (static_cast<int>(rng() % 100) < options_.drop_percent) {
      ++dropped_;
      return false;
    }
  }
  if (msg.head.type == MsgType::kAck) {
    if (resender_) resender_->OnAck(msg.head.sender, msg.head.seq);
    return false;
  }
  if (!resender_ || msg.head.seq <= 0 || !Resender::Tracked(msg.head.type)) return true;
  if (dealer != nullptr) {
    MsgHeader ack;
    ack.type = MsgType::kAck;
    ack.sender = msg.head.recver;
    ack.recver = msg.head.sender;
    ack.seq = msg.head.seq;
    const std::string frame = Frame(ack, "");
    zmq_send(dealer, frame.data(), frame.size(), 0);
  }
  return !resender_->SeenBefore(msg.head.sender, msg.head.seq);
}

void Van::Stop() {
  if (!started_ || !thread_.joinable()) return;
  if (resender_ && !resender_->WaitUntilAcked(std::max(2000.0, 3 * options_.resend_timeout_ms))) {
    LOG(WARNING) << "parameter server: " << resender_->unacked()
                 << " message(s) still unacknowledged at exit (PS_RESEND)";
  }
  SendToThread(kDestStop, "", nullptr);
  thread_.join();
}

void Van::Loop() {
  std::unordered_map<int, void*> dealers;
  zmq_pollitem_t items[2] = {{router_, 0, ZMQ_POLLIN, 0}, {inbox_, 0, ZMQ_POLLIN, 0}};
  bool running = true;
  while (running) {
    if (zmq_poll(items, 2, -1) < 0) {
      if (errno == EINTR) continue;
      LOG(ERROR) << "parameter server: zmq_poll failed: " << zmq_strerror(errno);
      break;
    }
    if (items[1].revents & ZMQ_POLLIN) {
      int dest = 0;
      zmq_recv(inbox_, &dest, sizeof(dest), 0);
      if (dest == kDestStop) {
        running = false;
      } else if (dest == kDestConnect) {
        char buf[512] = {0};
        const int n = zmq_recv(inbox_, buf, sizeof(buf) - 1, 0);
        std::istringstream is(std::string(buf, n > 0 ? n : 0));
        int id = 0, port = 0;
        std::string host;
        is >> id >> host >> port;
        if (dealers.count(id)) zmq_close(dealers[id]);
        void* s = zmq_socket(ctx_, ZMQ_DEALER);
        SetCommonOptions(s);
        // On close, still deliver what was queued (a barrier's release).
        int linger_ms = 2000;
        zmq_setsockopt(s, ZMQ_LINGER, &linger_ms, sizeof(linger_ms));
        const std::string addr = "tcp://" + host + ":" + std::to_string(port);
        if (zmq_connect(s, addr.c_str()) != 0) {
          LOG(ERROR) << "parameter server: cannot connect to node " << id << " at " << addr << ": "
                     << zmq_strerror(errno);
        }
        dealers[id] = s;
      } else {
        auto it = dealers.find(dest);
        if (it == dealers.end()) {
          LOG(ERROR) << "parameter server: dropped a message for node " << dest
                     << ", which this node has no connection to";
        }
        ForwardFrame(inbox_, it == dealers.end() ? nullptr : it->second);
      }
    }
    if (running && (items[0].revents & ZMQ_POLLIN)) {
      zmq_msg_t identity;
      zmq_msg_init(&identity);
      zmq_msg_recv(&identity, router_, 0);
      zmq_msg_close(&identity);
      if (!HasMore(router_)) continue;
      zmq_msg_t head;
      zmq_msg_init(&head);
      zmq_msg_recv(&head, router_, 0);
      Message msg;
      const size_t size = zmq_msg_size(&head);
      bool ok = size >= sizeof(MsgHeader);
      if (ok) {
        std::memcpy(&msg.head, zmq_msg_data(&head), sizeof(MsgHeader));
        ok = msg.head.magic == kMagic && msg.head.body_len == size - sizeof(MsgHeader);
      }
      if (ok)
        msg.body.assign(static_cast<char*>(zmq_msg_data(&head)) + sizeof(MsgHeader),
                        size - sizeof(MsgHeader));
      zmq_msg_close(&head);
      if (ok && HasMore(router_)) {
        std::shared_ptr<zmq_msg_t> payload(new zmq_msg_t, [](zmq_msg_t* m) {
          zmq_msg_close(m);
          delete m;
        });
        zmq_msg_init(payload.get());
        zmq_msg_recv(payload.get(), router_, 0);
        msg.payload = static_cast<const char*>(zmq_msg_data(payload.get()));
        msg.payload_size = zmq_msg_size(payload.get());
        msg.payload_owner = payload;
      }
      if (HasMore(router_)) ok = false;
      Drain(router_);
      if (!ok) {
        LOG(ERROR) << "parameter server: dropped a malformed message of " << size << " bytes";
        continue;
      }
      if (msg.head.auth != token_) {
        if (rejected_++ < 20) {
          LOG(ERROR) << "parameter server: rejected a message from node " << msg.head.sender
                     << " that does not carry this job's DMLC_PS_SECRET";
        }
        continue;
      }
      auto dealer = dealers.find(msg.head.sender);
      if (!Admit(msg, dealer == dealers.end() ? nullptr : dealer->second)) continue;
      handler_(std::move(msg));
    }
  }
  for (auto& kv : dealers) zmq_close(kv.second);
  zmq_close(inbox_);
  zmq_close(router_);
  inbox_ = router_ = nullptr;
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
