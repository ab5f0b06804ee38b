// KVStore: the key-value store that combines arrays pushed from several devices (or, later,
// workers) and hands the result back; MXNet 1.9.1's C++ interface for the in-process types.
#ifndef MXNET_KVSTORE_H_
#define MXNET_KVSTORE_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {

/*!
 * \brief The store. Every operation only enqueues engine work on the arrays' variables and
 *  returns: a pull is complete when its outputs are read (asnumpy, wait_to_read).
 *  Keys are ints or strings; one store takes one kind (mixing them is an error).
 */
class KVStore {
 public:
  /*! \brief Runs on the store at each push: local += optimizer(recv), as MXNet's updater. */
  using Updater = std::function<void(int key, const NDArray& recv, NDArray* local)>;
  using StrUpdater = std::function<void(const std::string& key, const NDArray& recv, NDArray* local)>;
  /*! \brief Runs on a server for a command a worker sent (head, body), as MXNet's. */
  using Controller = std::function<void(int head, const std::string& body)>;

  virtual ~KVStore() = default;

  /*!
   * \brief A store of the given type, as MXNet names them: "local" (also "local_update_cpu",
   *  "local_allreduce_cpu"), "device" ("local_allreduce_device"); "nccl" needs a build with
   *  NCCL; "dist_sync", "dist_async", "dist_sync_device", "dist_async_device" (and "dist" on
   *  servers) join the parameter-server job the DMLC_* variables describe. Case-insensitive.
   *  Throws dmlc::Error naming the type otherwise.
   */
  static std::unique_ptr<KVStore> Create(const char* type);

  /*! \brief The type string given to Create (lower case). */
  const std::string& type() const { return type_; }

  /*! \brief Store a copy of each value under its key; a key is initialized once. */
  virtual void Init(const std::vector<int>& keys, const std::vector<NDArray>& values) = 0;
  virtual void Init(const std::vector<std::string>& keys, const std::vector<NDArray>& values) = 0;
  /*! \brief Sum the values given for each key (a key may repeat: one value per device); the
   *  updater, when set, merges the sum into the stored value, else the sum replaces it. */
  virtual void Push(const std::vector<int>& keys, const std::vector<NDArray>& values,
                    int priority) = 0;
  virtual void Push(const std::vector<std::string>& keys, const std::vector<NDArray>& values,
                    int priority) = 0;
  /*! \brief Copy each key's stored value into its outputs (a key may repeat). */
  virtual void Pull(const std::vector<int>& keys, const std::vector<NDArray*>& values,
                    int priority, bool ignore_sparse) = 0;
  virtual void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& values,
                    int priority, bool ignore_sparse) = 0;
  /*! \brief Pull of selected rows of a row_sparse value; throws: no sparse storage here. */
  virtual void PullRowSparse(const std::vector<int>& keys,
                             const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                             int priority) = 0;
  virtual void PullRowSparse(const std::vector<std::string>& keys,
                             const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                             int priority) = 0;
  /*! \brief Init(vkeys, values) then Pull(okeys, outs). */
  virtual void Broadcast(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                         const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                         int priority) = 0;
  virtual void Broadcast(const std::vector<std::string>& vkeys,
                         const std::vector<std::string>& okeys,
                         const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                         int priority) = 0;
  /*! \brief Push(vkeys, values) then Pull(okeys, outs). */
  virtual void PushPull(const std::vector<int>& vkeys, const std::vector<int>& okeys,
                        const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                        int priority) = 0;
  virtual void PushPull(const std::vector<std::string>& vkeys,
                        const std::vector<std::string>& okeys,
                        const std::vector<NDArray>& values, const std::vector<NDArray*>& outs,
                        int priority) = 0;

  /*! \brief Gradient compression: kwargs "type" ("2bit") and "threshold" (> 0). */
  virtual void SetGradientCompression(
      const std::vector<std::pair<std::string, std::string>>& kwargs) = 0;

  virtual void set_updater(const Updater& updater) { updater_ = updater; }
  virtual void set_updater(const StrUpdater& updater) { str_updater_ = updater; }

  /*! \brief Rank of this worker and number of workers: 0 and 1 in one process. */
  virtual int get_rank() const { return 0; }
  virtual int get_group_size() const { return 1; }
  /*! \brief Nodes of the group found dead; none in one process. */
  virtual int get_num_dead_node(int node_id, int timeout_sec) const { return 0; }
  /*! \brief Wait for every worker: nothing to wait for in one process. */
  virtual void Barrier() {}
  virtual void set_barrier_before_exit(bool barrier_before_exit) {
    barrier_before_exit_ = barrier_before_exit;
  }
  /*! \brief Commands for servers: there are none in one process, so nothing is sent. */
  virtual void SendCommandToServers(int cmd_id, const std::string& cmd_body) {}
  /*! \brief Serve as a parameter server (or scheduler) until the job ends; only distributed
   *  stores on a server or scheduler node can. */
  virtual void RunServer(const Controller& controller);

  /*! \brief Roles of this process from DMLC_ROLE (unset: a worker), as MXNet's. */
  static bool IsWorkerNode();
  static bool IsServerNode();
  static bool IsSchedulerNode();

 protected:
  std::string type_;
  Updater updater_;
  StrUpdater str_updater_;
  bool barrier_before_exit_{true};
};

}  // namespace mxnet

#endif  // MXNET_KVSTORE_H_
