// PostOffice: rendezvous, barriers and liveness of a parameter-server job; see
// postoffice.h.
//
// Rendezvous: every server and worker listens on a free port and sends kAddNode
// to the scheduler (DMLC_PS_ROOT_URI:DMLC_PS_ROOT_PORT); once DMLC_NUM_SERVER +
// DMLC_NUM_WORKER have, the scheduler gives ranks in arrival order (ids as
// ps-lite's) and sends everyone the node list. Liveness: each node sends a
// heartbeat to the scheduler every PS_HEARTBEAT_INTERVAL seconds; a node silent
// for PS_HEARTBEAT_TIMEOUT makes the scheduler tell every other node
// (kNodeFailed), and a node that hears nothing from the scheduler for that long
// gives up on it. Either way the job is failed: barriers and requests throw.
#include "kvstore/dist/postoffice.h"

#include <arpa/inet.h>
#include <dmlc/logging.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <sstream>

#include "common/env.h"

namespace mxnet {
namespace kvstore {
namespace dist {
namespace {

// PS_VERBOSE=2's line for one message, written whole in one write(2) (atomic on a pipe): LOG
// writes a line in pieces, and the lines of the sending and receiving threads interleaved
// inside each other when the machine was busy.
void LogMessageLine(int from, const char* arrow, int to, const MsgHeader& h, size_t bytes) {
  const std::time_t now = std::time(nullptr);
  std::tm t{};
  localtime_r(&now, &t);
  char line[256];
  const int n = std::snprintf(line, sizeof(line),
                              "[%02d:%02d:%02d] parameter server: node %d %s %d type %d key %d "
                              "bytes %zu\n",
                              t.tm_hour, t.tm_min, t.tm_sec, from, arrow, to,
                              static_cast<int>(h.type), static_cast<int>(h.key), bytes);
  if (n > 0) {
    const ssize_t written = ::write(2, line, std::min(static_cast<size_t>(n), sizeof(line) - 1));
    (void)written;
  }
}

std::string RequiredEnv(const char* name) {
  CHECK(env::IsSet(name)) << "parameter server: " << name
                          << " is not set; start distributed jobs with tools/launch.py or set "
                             "DMLC_ROLE, DMLC_PS_ROOT_URI, DMLC_PS_ROOT_PORT, DMLC_NUM_SERVER "
                             "and DMLC_NUM_WORKER (see docs/distributed_training.md)";
  return env::GetString(name);
}

int RequiredIntEnv(const char* name, int min_value) {
  const std::string text = RequiredEnv(name);
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);  // NOLINT(runtime/int)
  CHECK(end != text.c_str() && *end == '\0' && v >= min_value)
      << "parameter server: " << name << " must be an integer >= " << min_value << ", given '"
      << text << "'";
  return static_cast<int>(v);
}

// The IPv4 address of interface `name`, or of the first interface that is up
// and not loopback when name is empty; "" when there is none.
std::string InterfaceAddress(const std::string& name) {
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (struct ifaddrs* it = list; it != nullptr && found.empty(); it = it->ifa_next) {
    if (it->ifa_addr == nullptr || it->ifa_addr->sa_family != AF_INET) continue;
    if (name.empty() ? (it->ifa_flags & IFF_LOOPBACK) != 0 : name != it->ifa_name) continue;
    char buf[INET_ADDRSTRLEN];
    auto* addr = reinterpret_cast<struct sockaddr_in*>(it->ifa_addr);
    if (inet_ntop(AF_INET, &addr->sin_addr, buf, sizeof(buf))) found = buf;
  }
  freeifaddrs(list);
  return found;
}

// The address other nodes reach this one at: DMLC_NODE_HOST, else
// DMLC_INTERFACE's address, else loopback when the scheduler is on loopback,
// else the first external interface.
std::string LocalHost(const std::string& root_uri) {
  if (env::IsSet("DMLC_NODE_HOST")) return env::GetString("DMLC_NODE_HOST");
  if (env::IsSet("DMLC_INTERFACE")) {
    const std::string iface = env::GetString("DMLC_INTERFACE");
    const std::string ip = InterfaceAddress(iface);
    CHECK(!ip.empty()) << "parameter server: DMLC_INTERFACE=" << iface
                       << " names no interface with an IPv4 address";
    return ip;
  }
  if (root_uri.rfind("127.", 0) == 0 || root_uri == "localhost") return "127.0.0.1";
  const std::string ip = InterfaceAddress("");
  return ip.empty() ? "127.0.0.1" : ip;
}

}  // namespace

PostOffice* PostOffice::Get() {
  // Never destroyed: a process that exits after a failure may still have
  // threads blocked in it, and the normal end (Finalize) has already stopped
  // everything.
  static PostOffice* office = new PostOffice();
  return office;
}

PostOffice::PostOffice() : role_(RoleFromEnv()) {}

void PostOffice::Start() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    CHECK(!finished_) << "parameter server: this process already left the job; a new "
                         "distributed KVStore needs a new process";
    if (started_) {
      CHECK(failure_.empty()) << failure_;
      return;
    }
    // Settings are checked before anything starts, so a bad one can be fixed
    // and retried.
    root_uri_ = RequiredEnv("DMLC_PS_ROOT_URI");
    root_port_ = RequiredIntEnv("DMLC_PS_ROOT_PORT", 1);
    num_workers_ = RequiredIntEnv("DMLC_NUM_WORKER", 1);
    num_servers_ = RequiredIntEnv("DMLC_NUM_SERVER", 1);
    verbose_ = static_cast<int>(env::GetInt("PS_VERBOSE"));
    heartbeat_interval_ = env::GetFloat("PS_HEARTBEAT_INTERVAL");
    heartbeat_timeout_ = env::GetFloat("PS_HEARTBEAT_TIMEOUT");
    connect_timeout_ = env::GetFloat("PS_CONNECT_TIMEOUT");
    started_ = true;
  }
  try {
    van_ = std::make_unique<Van>(env::GetString("DMLC_PS_SECRET"), VanOptions::FromEnv());
    if (role_ == "scheduler") {
      my_port_ = van_->Bind(root_port_);
      my_host_ = root_uri_;
      my_id_ = kSchedulerId;
      my_rank_ = 0;
    } else {
      my_port_ = van_->Bind(0);
      my_host_ = LocalHost(root_uri_);
    }
    van_->Start([this](Message&& m) { OnMessage(std::move(m)); });
    if (verbose_ >= 1) {
      LOG(INFO) << "parameter server: " << role_ << " listening at " << my_host_ << ":" << my_port_;
    }
    if (role_ != "scheduler") {
      van_->Connect(kSchedulerId, root_uri_, root_port_);
      Message hello;
      hello.head.type = MsgType::kAddNode;
      hello.body = role_ + " " + my_host_ + " " + std::to_string(my_port_);
      van_->Send(kSchedulerId, std::move(hello));
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      const bool ok = cv_.wait_for(lock, std::chrono::duration<double>(connect_timeout_),
                                   [this] { return ready_ || !failure_.empty(); });
      CHECK(ok) << "parameter server: the " << role_ << " at " << my_host_ << ":" << my_port_
                << " waited " << connect_timeout_ << " s (PS_CONNECT_TIMEOUT) for "
                << (role_ == "scheduler"
                        ? "all nodes to register"
                        : "the scheduler at " + root_uri_ + ":" + std::to_string(root_port_))
                << ": " << (role_ == "scheduler" ? pending_nodes_.size() : 0) << " of "
                << num_workers_ + num_servers_ << " arrived";
      // The scheduler watches every node; the others watch the scheduler.
      const auto now = Clock::now();
      for (auto& kv : nodes_) {
        if (kv.first != my_id_ && (role_ == "scheduler" || kv.first == kSchedulerId)) {
          last_seen_[kv.first] = now;
        }
      }
    }
  } catch (const dmlc::Error& e) {
    std::lock_guard<std::mutex> lock(mu_);  // later Starts report the same error
    if (failure_.empty()) failure_ = e.what();
    throw;
  }
  CheckHealthy();
  if (heartbeat_interval_ > 0) monitor_ = std::thread([this] { Monitor(); });
  Barrier(kScheduler + kServerGroup + kWorkerGroup);
}

void PostOffice::Finalize(bool do_barrier) {
  if (failure().empty() && do_barrier) Barrier(kScheduler + kServerGroup + kWorkerGroup);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_ || !started_) return;
    finished_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (monitor_.joinable()) monitor_.join();
  // Stopping waits (briefly) until the last messages, such as a barrier's
  // release, are sent (and with PS_RESEND acknowledged); the I/O thread, whose
  // handlers still use van_, runs until then, so van_ is reset only after.
  van_->Stop();
  van_.reset();
}

void PostOffice::SetAppHandler(std::function<void(Message&&)> handler) {
  std::lock_guard<std::mutex> lock(mu_);
  app_handler_ = std::move(handler);
  if (!app_handler_) return;
  // Requests that came before the store was ready (a worker may start as soon as the first
  // barrier ends, before a server's loop has begun) go first, in order; the I/O thread
  // sees the handler only after them.
  for (Message& m : early_messages_) app_handler_(std::move(m));
  early_messages_.clear();
}

void PostOffice::AddFailureListener(std::function<void(const std::string&)> listener) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::string failed = failure_;
  if (failed.empty()) {
    failure_listeners_.push_back(std::move(listener));
    return;
  }
  lock.unlock();
  listener(failed);
}

std::string PostOffice::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

void PostOffice::CheckHealthy() const {
  const std::string failed = failure();
  CHECK(failed.empty()) << failed;
}

int PostOffice::num_dead_nodes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(dead_.size());
}

void PostOffice::Send(int id, Message msg) {
  CheckHealthy();
  msg.head.sender = my_id_;
  if (verbose_ >= 2) LogMessageLine(my_id_, "->", id, msg.head, msg.payload_size);
  van_->Send(id, std::move(msg));
}

bool PostOffice::InGroup(int id, int group) const {
  if (id == kSchedulerId) return (group & kScheduler) != 0;
  return (group & (IsServerId(id) ? kServerGroup : kWorkerGroup)) != 0;
}

int PostOffice::GroupSize(int group) const {
  return ((group & kScheduler) ? 1 : 0) + ((group & kServerGroup) ? num_servers_ : 0) +
         ((group & kWorkerGroup) ? num_workers_ : 0);
}

std::string PostOffice::Describe(int id) const {
  auto it = nodes_.find(id);
  std::ostringstream os;
  if (id == kSchedulerId) {
    os << "the scheduler";
  } else {
    os << (IsServerId(id) ? "server rank " : "worker rank ") << (id - 8) / 2;
  }
  os << " (node " << id;
  if (it != nodes_.end()) os << " at " << it->second.host << ":" << it->second.port;
  os << ")";
  return os.str();
}

void PostOffice::OnMessage(Message&& msg) {
  const int sender = msg.head.sender;
  if (verbose_ >= 2) LogMessageLine(my_id_, "<-", sender, msg.head, msg.payload_size);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (role_ == "scheduler" ? nodes_.count(sender) != 0 : sender == kSchedulerId) {
      last_seen_[sender] = Clock::now();
    }
  }
  switch (msg.head.type) {
    case MsgType::kAddNode:
      OnAddNode(msg);
      return;
    case MsgType::kNodeList:
      OnNodeList(msg.body);
      return;
    case MsgType::kBarrier:
      OnBarrier(sender, msg.head.cmd);
      return;
    case MsgType::kBarrierDone: {
      std::lock_guard<std::mutex> lock(mu_);
      barrier_done_[msg.head.cmd]++;
      cv_.notify_all();
      return;
    }
    case MsgType::kHeartbeat: {
      Message ack;
      ack.head.type = MsgType::kHeartbeatAck;
      if (failure().empty()) Send(sender, std::move(ack));
      return;
    }
    case MsgType::kHeartbeatAck:
      return;
    case MsgType::kNodeFailed:
      Fail(msg.body, msg.head.key, false);
      return;
    default: {
      std::function<void(Message &&)> handler;
      {
        std::lock_guard<std::mutex> lock(mu_);
        handler = app_handler_;
      }
      if (handler) {
        handler(std::move(msg));
        return;
      }
      std::lock_guard<std::mutex> lock(mu_);
      if (app_handler_) {  // set meanwhile
        app_handler_(std::move(msg));
      } else {
        early_messages_.push_back(std::move(msg));
      }
    }
  }
}

void PostOffice::OnAddNode(const Message& msg) {
  std::istringstream is(msg.body);
  Node node{0, "", "", 0};
  is >> node.role >> node.host >> node.port;
  std::unique_lock<std::mutex> lock(mu_);
  if (role_ != "scheduler" || ready_ || (node.role != "server" && node.role != "worker") ||
      node.port <= 0) {
    LOG(ERROR) << "parameter server: rejected a node registration '" << msg.body << "'"
               << (ready_ ? ": the job already has all its " + std::to_string(GroupSize(6)) +
                                " nodes (check DMLC_NUM_WORKER / DMLC_NUM_SERVER)"
                          : "");
    return;
  }
  pending_nodes_.push_back(node);
  if (verbose_ >= 1)
    LOG(INFO) << "parameter server: scheduler met " << node.role << " at " << node.host << ":"
              << node.port;
  if (static_cast<int>(pending_nodes_.size()) < num_workers_ + num_servers_) return;
  int next_server = 0, next_worker = 0;
  std::ostringstream list;
  list << kSchedulerId << " scheduler " << my_host_ << " " << my_port_ << "\n";
  nodes_[kSchedulerId] = Node{kSchedulerId, "scheduler", my_host_, my_port_};
  for (Node& n : pending_nodes_) {
    n.id = n.role == "server" ? ServerRankToId(next_server++) : WorkerRankToId(next_worker++);
    nodes_[n.id] = n;
    list << n.id << " " << n.role << " " << n.host << " " << n.port << "\n";
  }
  CHECK(next_server == num_servers_ && next_worker == num_workers_)
      << "parameter server: expected " << num_servers_ << " servers and " << num_workers_
      << " workers, " << next_server << " servers and " << next_worker << " workers registered";
  for (const Node& n : pending_nodes_) {
    van_->Connect(n.id, n.host, n.port);
    Message m;
    m.head.type = MsgType::kNodeList;
    m.head.sender = my_id_;
    m.body = list.str();
    van_->Send(n.id, std::move(m));
  }
  ready_ = true;
  cv_.notify_all();
}

void PostOffice::OnNodeList(const std::string& body) {
  std::istringstream is(body);
  std::unique_lock<std::mutex> lock(mu_);
  Node n{0, "", "", 0};
  while (is >> n.id >> n.role >> n.host >> n.port) {
    nodes_[n.id] = n;
    if (n.role == role_ && n.host == my_host_ && n.port == my_port_) my_id_ = n.id;
  }
  CHECK(my_id_ != 0) << "parameter server: the scheduler's node list misses this " << role_;
  my_rank_ = (my_id_ - 8) / 2;
  for (const auto& kv : nodes_) {
    if (kv.first != kSchedulerId && kv.first != my_id_) {
      van_->Connect(kv.first, kv.second.host, kv.second.port);
    }
  }
  if (verbose_ >= 1) LOG(INFO) << "parameter server: " << Describe(my_id_) << " joined";
  ready_ = true;
  cv_.notify_all();
}

void PostOffice::Barrier(int group) {
  std::unique_lock<std::mutex> lock(mu_);
  CHECK(failure_.empty()) << failure_;
  CHECK(InGroup(my_id_, group)) << "parameter server: barrier of group " << group << " called by "
                                << Describe(my_id_) << ", not a member";
  const int target = barrier_done_[group] + 1;
  if (role_ == "scheduler") {
    ArriveAtBarrier(&lock, my_id_, group);
  } else {
    Message m;
    m.head.type = MsgType::kBarrier;
    m.head.cmd = group;
    m.head.sender = my_id_;
    van_->Send(kSchedulerId, std::move(m));
  }
  cv_.wait(lock, [&] { return barrier_done_[group] >= target || !failure_.empty(); });
  CHECK(failure_.empty()) << failure_;
}

void PostOffice::OnBarrier(int sender, int group) {
  std::unique_lock<std::mutex> lock(mu_);
  if (role_ != "scheduler" || !InGroup(sender, group)) {
    LOG(ERROR) << "parameter server: dropped a barrier request of group " << group << " from node "
               << sender;
    return;
  }
  ArriveAtBarrier(&lock, sender, group);
}

void PostOffice::ArriveAtBarrier(std::unique_lock<std::mutex>* lock, int sender, int group) {
  std::set<int>& arrived = arrived_[group];
  arrived.insert(sender);
  if (static_cast<int>(arrived.size()) < GroupSize(group)) return;
  for (int id : arrived) {
    if (id == my_id_) continue;
    Message m;
    m.head.type = MsgType::kBarrierDone;
    m.head.cmd = group;
    m.head.sender = my_id_;
    van_->Send(id, std::move(m));
  }
  arrived.clear();
  if (group & kScheduler) barrier_done_[group]++;
  cv_.notify_all();
}

void PostOffice::Fail(const std::string& reason, int dead_id, bool tell_others) {
  std::vector<std::function<void(const std::string&)>> listeners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty() || finished_) return;
    failure_ = reason;
    if (dead_id > 0) dead_.insert(dead_id);
    LOG(ERROR) << "parameter server: " << reason;
    if (tell_others && van_) {
      for (const auto& kv : nodes_) {
        if (kv.first == my_id_ || kv.first == dead_id) continue;
        Message m;
        m.head.type = MsgType::kNodeFailed;
        m.head.sender = my_id_;
        m.head.key = dead_id;
        m.body = reason;
        van_->Send(kv.first, std::move(m));
      }
    }
    listeners.swap(failure_listeners_);
  }
  cv_.notify_all();
  for (auto& l : listeners) l(reason);
}

void PostOffice::Monitor() {
  const auto interval = std::chrono::duration<double>(heartbeat_interval_);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, interval, [this] { return stopping_; });
    if (stopping_) break;
    if (!failure_.empty() || heartbeat_timeout_ <= 0) continue;
    const auto now = Clock::now();
    const double limit = heartbeat_timeout_;
    int dead_id = 0;
    for (const auto& kv : last_seen_) {
      if (kv.first == my_id_) continue;
      if (std::chrono::duration<double>(now - kv.second).count() > limit) dead_id = kv.first;
    }
    if (role_ != "scheduler") {
      Message beat;
      beat.head.type = MsgType::kHeartbeat;
      beat.head.sender = my_id_;
      van_->Send(kSchedulerId, std::move(beat));
    }
    if (dead_id != 0) {
      std::ostringstream why;
      why << Describe(dead_id) << " has been silent for more than " << limit
          << " s (PS_HEARTBEAT_TIMEOUT): it died or cannot be reached; " << Describe(my_id_)
          << " stops the job";
      lock.unlock();
      Fail(why.str(), dead_id, role_ == "scheduler");
      lock.lock();
    }
  }
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
