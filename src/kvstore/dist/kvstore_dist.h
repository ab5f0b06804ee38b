// The distributed KVStore ("dist_sync", "dist_async", "dist_sync_device", "dist_p3", ...):
// what the worker and server sides share — how a key's elements are split over
// the servers, the server commands (MXNet 1.9.1's numbers), and the factories.
#ifndef MXNET_KVSTORE_DIST_KVSTORE_DIST_H_
#define MXNET_KVSTORE_DIST_KVSTORE_DIST_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mxnet/kvstore.h"

namespace mxnet {
namespace kvstore {
namespace dist {

/*! \brief Commands a worker sends to the servers, numbered as MXNet 1.9.1's
 * CommandType. */
enum class Command : int {
  kController = 0,
  kSetMultiPrecision = 1,
  kStopServer = 2,
  kSyncMode = 3,
  kSetGradientCompression = 4,
  kSetProfilerParams = 5,
  // Not MXNet's: a worker's store is closing (body: its rank). A sync round that still
  // waits for that worker can never complete, so the servers fail it instead of hanging.
  kWorkerLeaving = 100,
};

/*! \brief Where the parts of one key live: part i is elements [begin[i],
 * begin[i] + len[i]) on server rank server[i], and words [cbegin[i], cbegin[i]
 * + clen[i]) of its 2-bit codes. row_len: elements per row when every part is
 * whole rows (row_sparse pushes and pulls then move rows, row_sparse.h), else 0. */
struct KeyLayout {
  std::vector<int> server;
  std::vector<int64_t> begin, len, cbegin, clen;
  int64_t row_len{0};
};

/*! \brief As MXNet 1.9.1 shards a key: an array of fewer than bigarray_bound
 * elements goes whole to server (key * 9973) % num_servers; a bigger one is cut
 * into num_servers parts of round(c / num_servers * (i + 1)) - round(c /
 * num_servers * i) units (c units in all, the last part takes the rest). A unit
 * is lcm(16, row_len) elements when there are at least num_servers of them (so
 * parts are whole rows too and row_sparse gradients travel as rows), else one
 * 2-bit word of 16 elements: a compressed part and its uncompressed elements
 * always line up. Empty parts are left out. */
KeyLayout MakeKeyLayout(int key, int64_t num_elems, int num_servers, int64_t bigarray_bound,
                        int64_t row_len = 1);

/*! \brief As MXNet 1.9.1's dist_p3 cuts a key: slices of slice_threshold
 * elements (the last one shorter), given to the servers round-robin from
 * *next_server on (the counter runs on over the keys, in init order, the same on
 * every worker). No 2-bit parts: dist_p3 has no compression. */
KeyLayout MakeP3KeyLayout(int64_t num_elems, int num_servers, int64_t slice_threshold,
                          int* next_server);

/*! \brief DMLC_ROLE: "worker" (also when unset), "server" or "scheduler";
 * anything else throws dmlc::Error. Built without the parameter server too
 * (roles are then unused). */
std::string RoleFromEnv();

/*! \brief A worker's store of the given type (already lower case). */
std::unique_ptr<KVStore> CreateKVStoreDist(const std::string& type);

/*! \brief The server loop of a server node (called by KVStoreDist::RunServer on
 * the calling thread): serves pushes, pulls and commands until a worker sends
 * kStopServer. updater is read at each update (the controller may set it);
 * throws dmlc::Error when the job fails. */
void RunServerLoop(const KVStore::Controller& controller,
                   const std::function<KVStore::Updater()>& updater);

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_KVSTORE_DIST_H_
