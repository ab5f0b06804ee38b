// PostOffice: this process's place in a parameter-server job (MXNet 1.9.1's
// DMLC_* roles). It meets the scheduler, learns every node's id and address,
// runs barriers through the scheduler, and watches liveness with heartbeats:
// when a node dies or the scheduler goes silent, every waiting call on every
// other node fails with an error naming it, never hangs.
#ifndef MXNET_KVSTORE_DIST_POSTOFFICE_H_
#define MXNET_KVSTORE_DIST_POSTOFFICE_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/dist/van.h"

namespace mxnet {
namespace kvstore {
namespace dist {

class PostOffice {
 public:
  /*! \brief The process-wide post office (one per process, as ps-lite's). */
  static PostOffice* Get();

  /*! \brief Join the job described by the DMLC_* variables (once; later calls
   * return at once) and wait in a barrier of all nodes. Throws dmlc::Error on
   * bad settings or when the scheduler cannot be reached within
   * PS_CONNECT_TIMEOUT seconds. */
  void Start();
  /*! \brief Leave the job: a barrier of all nodes first when do_barrier, then
   * stop. */
  void Finalize(bool do_barrier);

  /*! \brief Wait until every node of group (a sum of kScheduler, kServerGroup,
   *  kWorkerGroup) has called Barrier with it. Throws if a node failed
   * meanwhile. */
  void Barrier(int group);
  /*! \brief Send msg to node id. Throws the failure when the job has failed. */
  void Send(int id, Message msg);

  /*! \brief Where kPush/kPull/kCommand/kReply go (called on the I/O thread). */
  void SetAppHandler(std::function<void(Message&&)> handler);
  /*! \brief Called once (on any thread) when the job fails, with the reason. */
  void AddFailureListener(std::function<void(const std::string&)> listener);
  /*! \brief The reason the job failed, or "" while it is healthy. */
  std::string failure() const;
  /*! \brief Throws dmlc::Error with the failure, if any. */
  void CheckHealthy() const;

  const std::string& role() const { return role_; }
  int my_id() const { return my_id_; }
  int my_rank() const { return my_rank_; }
  int num_workers() const { return num_workers_; }
  int num_servers() const { return num_servers_; }
  /*! \brief Nodes found dead so far. */
  int num_dead_nodes() const;
  /*! \brief PS_VERBOSE: 1 logs connections, 2 also every message. */
  int verbose() const { return verbose_; }

 private:
  struct Node {
    int id;
    std::string role;
    std::string host;
    int port;
  };
  using Clock = std::chrono::steady_clock;

  PostOffice();
  void OnMessage(Message&& msg);
  void OnAddNode(const Message& msg);
  void OnBarrier(int sender, int group);
  void OnNodeList(const std::string& body);
  void ArriveAtBarrier(std::unique_lock<std::mutex>* lock, int sender, int group);
  void Fail(const std::string& reason, int dead_id, bool tell_others);
  void Monitor();
  std::string Describe(int id) const;
  int GroupSize(int group) const;
  bool InGroup(int id, int group) const;

  std::string role_;
  int my_id_{0}, my_rank_{-1}, num_workers_{0}, num_servers_{0}, verbose_{0};
  std::string root_uri_, my_host_;
  int root_port_{0}, my_port_{0};
  double heartbeat_interval_{1}, heartbeat_timeout_{30}, connect_timeout_{120};

  std::unique_ptr<Van> van_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool started_{false}, ready_{false}, finished_{false}, stopping_{false};
  std::map<int, Node> nodes_;                   // by id, once the list is known
  std::vector<Node> pending_nodes_;             // scheduler: nodes that said hello
  std::map<int, std::set<int>> arrived_;        // scheduler: group -> ids in its barrier
  std::map<int, int> barrier_done_;             // group -> barriers completed
  std::map<int, Clock::time_point> last_seen_;  // scheduler: per node; others: scheduler
  std::string failure_;
  std::set<int> dead_;
  std::function<void(Message&&)> app_handler_;
  std::vector<Message> early_messages_;  // app messages received before a handler was set
  std::vector<std::function<void(const std::string&)>> failure_listeners_;
  std::thread monitor_;
};

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_POSTOFFICE_H_
