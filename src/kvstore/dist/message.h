// The parameter server's wire message: a fixed header, a text body and an
// optional array payload, sent as ZeroMQ frames (header+body, then payload
// without a copy).
#ifndef MXNET_KVSTORE_DIST_MESSAGE_H_
#define MXNET_KVSTORE_DIST_MESSAGE_H_

#include <cstdint>
#include <memory>
#include <string>

namespace mxnet {
namespace kvstore {
namespace dist {

/*! \brief Node groups as ps-lite numbers them (a barrier names a sum of them).
 */
constexpr int kScheduler = 1;
constexpr int kServerGroup = 2;
constexpr int kWorkerGroup = 4;
constexpr int kSchedulerId = 1;
/*! \brief Node ids as ps-lite assigns them: server rank r is 8 + 2r, worker
 * rank r is 9 + 2r. */
inline int ServerRankToId(int rank) { return 8 + 2 * rank; }
inline int WorkerRankToId(int rank) { return 9 + 2 * rank; }
inline bool IsServerId(int id) { return id >= 8 && id % 2 == 0; }

enum class MsgType : int32_t {
  kAddNode = 1,   // node -> scheduler: body "role host port"
  kNodeList,      // scheduler -> all: body lines "id role host port"
  kBarrier,       // node -> scheduler: head.cmd = group
  kBarrierDone,   // scheduler -> members
  kHeartbeat,     // node -> scheduler
  kHeartbeatAck,  // scheduler -> node
  kNodeFailed,    // scheduler -> all: body names the node and why
  kPush,          // worker -> server: payload = values of one part
  kPull,          // worker -> server
  kCommand,       // worker -> server: head.cmd = command id, body = command body
  kReply,         // server -> worker: answers kPush/kPull/kCommand (payload for kPull)
  kAck,           // PS_RESEND: head.sender received its message numbered head.seq
};

/*! \brief Flags of kPush/kReply. */
constexpr int32_t kFlagInit = 1;        // the first value of a key (from worker 0); body:
                                        // the part's shape (int64s) or empty (1-D)
constexpr int32_t kFlagCompressed = 2;  // payload is 2-bit codes of num_elems elements
constexpr int32_t kFlagError = 4;       // the request failed: body says why
// kPush: answer "received" at once (dist_p3, whose workers bound the requests in flight:
// a sync push is answered only when every worker has pushed, so waiting for that answer
// could hold a place another worker's push needs). kReply: this is that receipt.
constexpr int32_t kFlagReceipt = 8;
// kPush/kPull of rows (row_sparse.h): the body holds the row ids (int64, sorted, unique,
// from the part's first row); the payload (push, or pull's reply) holds those rows.
constexpr int32_t kFlagRowSparse = 16;

constexpr uint32_t kMagic = 0x4d585053;  // "MXPS"

struct MsgHeader {
  uint32_t magic{kMagic};
  MsgType type{MsgType::kReply};
  int32_t sender{0};
  int32_t request_id{0};
  int32_t key{0};    // MXNet key (kPush/kPull), group (kBarrier)
  int32_t part{0};   // shard index of the key on this server
  int32_t cmd{0};    // command id (kCommand), barrier group (kBarrier)
  int32_t dtype{0};  // mshadow dtype of the payload's elements
  int32_t flags{0};
  int32_t seq{0};     // PS_RESEND: 1, 2, ... per (sender, receiver); 0 when not tracked
  int32_t recver{0};  // the node the message is addressed to (set by the Van)
  int32_t reserved{0};
  int64_t num_elems{0};  // elements the payload stands for (uncompressed)
  uint64_t body_len{0};
  uint64_t auth{0};  // the job's token (from DMLC_PS_SECRET), 0 without one
};

/*! \brief A message. The payload is borrowed memory kept alive by
 * payload_owner. */
struct Message {
  MsgHeader head;
  std::string body;
  const char* payload{nullptr};
  size_t payload_size{0};
  std::shared_ptr<void> payload_owner;
};

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_MESSAGE_H_
