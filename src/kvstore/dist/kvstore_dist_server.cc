// The server side of the distributed store: a loop on the thread that called
// RunServer (the Python main thread in `import mxnet` with DMLC_ROLE=server, so
// the optimizer runs there). Each part of a key has a stored value; in sync
// mode the pushes of a round are summed until every worker has pushed, then the
// updater (or plain replacement) applies the sum and all the round's pushes are
// answered at once; in async mode each push is applied on arrival. Pushes of
// rows (row_sparse.h) add their rows, and the updater then gets a row_sparse sum.
#include <dmlc/logging.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>

#include "common/type_switch.h"
#include "kvstore/dist/kvstore_dist.h"
#include "kvstore/dist/message.h"
#include "kvstore/dist/postoffice.h"
#include "kvstore/dist/row_sparse.h"
#include "kvstore/gradient_compression.h"

namespace mxnet {
namespace kvstore {
namespace dist {
namespace {

// Messages for the server loop, and the job's failure, handed over from the I/O
// thread.
struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Message> messages;
  std::string failure;
};

// Tell a dist_p3 worker its push arrived (it frees a place in its window).
void SendReceipt(PostOffice* po, const Message& req) {
  Message m;
  m.head.type = MsgType::kReply;
  m.head.request_id = req.head.request_id;
  m.head.key = req.head.key;
  m.head.part = req.head.part;
  m.head.flags = kFlagReceipt;
  try {
    po->Send(req.head.sender, std::move(m));
  } catch (const dmlc::Error&) {
  }
}

class Server {
 public:
  Server(const KVStore::Controller& controller, const std::function<KVStore::Updater()>& updater)
      : controller_(controller), updater_(updater), po_(PostOffice::Get()) {}

  void Run() {
    std::shared_ptr<Inbox> inbox = std::make_shared<Inbox>();
    PostOffice* po = po_;
    po_->SetAppHandler([inbox, po](Message&& m) {
      if (m.head.type == MsgType::kPush && (m.head.flags & kFlagReceipt)) {
        SendReceipt(po, m);  // from the I/O thread, before the loop gets to the push
      }
      std::lock_guard<std::mutex> lock(inbox->mu);
      inbox->messages.push_back(std::move(m));
      inbox->cv.notify_one();
    });
    po_->AddFailureListener([inbox](const std::string& why) {
      std::lock_guard<std::mutex> lock(inbox->mu);
      inbox->failure = why;
      inbox->cv.notify_one();
    });
    while (!stop_) {
      Message msg;
      {
        std::unique_lock<std::mutex> lock(inbox->mu);
        inbox->cv.wait(lock, [&] { return !inbox->messages.empty() || !inbox->failure.empty(); });
        CHECK(inbox->failure.empty()) << inbox->failure;
        msg = std::move(inbox->messages.front());
        inbox->messages.pop_front();
      }
      try {
        Handle(&msg);
      } catch (const std::exception& e) {
        LOG(ERROR) << "KVStore server rank " << po_->my_rank() << ": " << e.what();
        Reply(msg, e.what());
      }
    }
    po_->SetAppHandler(nullptr);
  }

 private:
  struct Slot {
    TShape shape;  // of the part: (elements,), or its rows and the key's shape[1:]
    NDArray stored;
    NDArray merged;  // this round's sum
    int count{0};
    bool shared{false};            // stored's memory may be in a reply still being sent
    std::vector<Message> waiting;  // this round's pushes, answered when it completes
    // Row-sparse pushes are summed into acc (zeros between rounds; merged is then acc);
    // rows: the rows they brought; dense_round: a dense push came too (all rows count).
    NDArray acc;
    std::vector<int64_t> rows;
    bool dense_round{false};
  };

  void Handle(Message* msg) {
    switch (msg->head.type) {
      case MsgType::kPush:
        HandlePush(msg);
        return;
      case MsgType::kPull:
        HandlePull(*msg);
        return;
      case MsgType::kCommand:
        HandleCommand(*msg);
        return;
      default:
        LOG(ERROR) << "KVStore server: dropped a message of type "
                   << static_cast<int>(msg->head.type) << " from node " << msg->head.sender;
    }
  }

  // Answer a request: an error text, or a payload (for pulls).
  void Reply(const Message& req, const std::string& error, const char* payload = nullptr,
             size_t payload_size = 0, std::shared_ptr<void> payload_owner = nullptr) {
    Message m;
    m.head.type = MsgType::kReply;
    m.head.request_id = req.head.request_id;
    m.head.key = req.head.key;
    m.head.part = req.head.part;
    m.head.dtype = req.head.dtype;
    if (!error.empty()) {
      m.head.flags = kFlagError;
      m.body = error;
    } else if (payload) {
      m.payload = payload;
      m.payload_size = payload_size;
      m.payload_owner = std::move(payload_owner);
    }
    try {
      po_->Send(req.head.sender, std::move(m));
    } catch (const dmlc::Error&) {
      // The job failed; the loop stops at its next wait.
    }
  }

  std::string KeyName(const Message& m) const {
    return "key " + std::to_string(m.head.key) + " (part " + std::to_string(m.head.part) + ")";
  }

  // The pushed values as an array over the received message's own memory (no copy; the
  // message is ours, so the array may be written), or over the expanded 2-bit codes.
  NDArray PushedArray(const Message& msg) {
    const MsgHeader& h = msg.head;
    const int64_t n = h.num_elems;
    std::shared_ptr<void> owner = msg.payload_owner;
    void* data = const_cast<char*>(msg.payload);
    int dtype = h.dtype;
    if (h.flags & kFlagCompressed) {
      CHECK(gc_.type() == CompressionType::kTwoBit)
          << "KVStore server: a compressed push of " << KeyName(msg)
          << " before set_gradient_compression reached the servers";
      CHECK(h.dtype == kFloat32 && msg.payload_size == TwoBitCompressedSize(n) * sizeof(float))
          << "KVStore server: compressed push of " << KeyName(msg) << " has the wrong size";
      auto decoded = std::make_shared<std::vector<float>>(n);
      Dequantize2Bit(reinterpret_cast<const float*>(msg.payload), decoded->data(), n,
                     gc_.threshold());
      data = decoded->data();
      owner = decoded;
    } else {
      CHECK(DTypeSize(h.dtype) > 0 && msg.payload_size == n * DTypeSize(h.dtype))
          << "KVStore server: push of " << KeyName(msg) << " carries " << msg.payload_size
          << " bytes for " << n << " elements of " << DTypeName(h.dtype);
    }
    const TShape shape({n});
    if (reinterpret_cast<uintptr_t>(data) % 8 != 0 || n == 0) {  // unaligned: copy
      NDArray copy(shape, Context::CPU(), false, dtype);
      copy.SyncCopyFromCPU(data, n);
      return copy;
    }
    return NDArray::FromExternal(TBlob(data, shape, dtype, Context::CPU()), owner);
  }

  // Before the stored value is written in place, stop sharing it with replies in flight.
  void OwnStored(Slot* slot) {
    if (!slot->shared) return;
    NDArray own(slot->stored.shape(), Context::CPU(), false, slot->stored.dtype());
    CopyFromTo(slot->stored, own);
    slot->stored = own;
    slot->shared = false;
  }

  void HandlePush(Message* msg) {
    const MsgHeader& h = msg->head;
    const int64_t n = h.num_elems;
    Slot& slot = slots_[{h.key, h.part}];
    if (h.flags & kFlagInit) {
      NDArray recv = PushedArray(*msg);
      slot.shape = DecodePartShape(msg->body, n);
      slot.stored = recv.Reshape(slot.shape);
      slot.shared = true;
      Reply(*msg, "");
      return;
    }
    CHECK(!slot.stored.is_none()) << "KVStore server: push of " << KeyName(*msg)
                                  << " before it was initialized (call init first)";
    if (h.flags & kFlagRowSparse) {
      HandleRowSparsePush(msg, &slot);
      return;
    }
    NDArray recv = PushedArray(*msg);
    CHECK(slot.stored.shape().Size() == static_cast<size_t>(n) && slot.stored.dtype() == h.dtype)
        << "KVStore server: push of " << KeyName(*msg) << " has " << n << " elements of "
        << DTypeName(h.dtype) << ", the key holds " << slot.stored.shape().Size() << " of "
        << DTypeName(slot.stored.dtype());
    recv = recv.Reshape(slot.shape);
    KVStore::Updater updater = updater_();
    if (!sync_mode_) {
      CHECK(updater) << "KVStore server: dist_async applies each push with the optimizer; "
                        "set one with kv.set_optimizer (or Trainer(update_on_kvstore=True))";
      OwnStored(&slot);
      updater(h.key, recv, &slot.stored);
      slot.stored.WaitToRead();
      Reply(*msg, "");
      return;
    }
    slot.waiting.push_back(std::move(*msg));
    if (!left_workers_.empty()) {
      FailRound(&slot);
      return;
    }
    slot.dense_round = true;
    if (slot.count == 0) {
      slot.merged = recv;  // the first push's buffer becomes the round's sum
    } else {
      slot.merged.WaitToWrite();
      const char* src_bytes = static_cast<const char*>(recv.data().dptr_);
      MXNET_TYPE_SWITCH(h.dtype, DType, {
        DType* dst = slot.merged.data().dptr<DType>();
        const DType* src = reinterpret_cast<const DType*>(src_bytes);
        for (int64_t i = 0; i < n; ++i) dst[i] = dst[i] + src[i];
      });
    }
    if (++slot.count < po_->num_workers()) return;
    FinishRound(h.key, &slot, updater);
  }

  // A push of rows: dist_async applies it at once (as a row_sparse gradient, so a lazy
  // optimizer touches only those rows); dist_sync adds its rows to the round's sum.
  void HandleRowSparsePush(Message* msg, Slot* slot) {
    const MsgHeader& h = msg->head;
    std::vector<int64_t> ids;
    const std::string bad = DecodeRowIds(msg->body, slot->shape[0], &ids);
    CHECK(bad.empty()) << "KVStore server: row_sparse push of " << KeyName(*msg) << ": " << bad;
    const size_t row_bytes = RowLength(slot->shape) * DTypeSize(h.dtype);
    CHECK(h.dtype == slot->stored.dtype() && msg->payload_size == ids.size() * row_bytes)
        << "KVStore server: row_sparse push of " << KeyName(*msg) << " carries "
        << msg->payload_size << " bytes of " << DTypeName(h.dtype) << " for " << ids.size()
        << " rows; the key holds rows of " << row_bytes / DTypeSize(slot->stored.dtype()) << " "
        << DTypeName(slot->stored.dtype());
    KVStore::Updater updater = updater_();
    if (!sync_mode_) {
      CHECK(updater) << "KVStore server: dist_async applies each push with the optimizer; "
                        "set one with kv.set_optimizer (or Trainer(update_on_kvstore=True))";
      OwnStored(slot);
      updater(h.key, MakeRowSparse(slot->shape, h.dtype, ids, msg->payload), &slot->stored);
      slot->stored.WaitToRead();
      Reply(*msg, "");
      return;
    }
    slot->waiting.push_back(std::move(*msg));
    if (!left_workers_.empty()) {
      FailRound(slot);
      return;
    }
    if (slot->count == 0) {
      if (slot->acc.is_none()) {
        slot->acc = NDArray(slot->shape, Context::CPU(), false, slot->stored.dtype());
        std::memset(slot->acc.data().dptr_, 0, slot->shape.Size() * DTypeSize(h.dtype));
      }
      slot->merged = slot->acc;
    }
    slot->merged.WaitToWrite();
    AddRows(slot->merged, ids, slot->waiting.back().payload);
    slot->rows.insert(slot->rows.end(), ids.begin(), ids.end());
    if (++slot->count < po_->num_workers()) return;
    FinishRound(slot->waiting.back().head.key, slot, updater);
  }

  // Every worker has pushed: apply the sum (with the updater, or as the new value), answer
  // the round's pushes, and clear the sum for the next round. A round of row_sparse pushes
  // only hands the updater a row_sparse sum of the rows pushed (lazy updates touch those).
  void FinishRound(int key, Slot* slot, const KVStore::Updater& updater) {
    const bool from_acc = !slot->acc.is_none() && slot->merged.var() == slot->acc.var();
    if (updater) {
      NDArray grad = slot->merged;
      if (!slot->dense_round) {
        std::sort(slot->rows.begin(), slot->rows.end());
        slot->rows.erase(std::unique(slot->rows.begin(), slot->rows.end()), slot->rows.end());
        grad = GatherRowSparse(slot->merged, slot->rows);
      }
      OwnStored(slot);
      updater(key, grad, &slot->stored);
    } else if (from_acc) {
      // The sum (zeros where nobody pushed a row) becomes the value, as a dense sum does.
      NDArray value(slot->shape, Context::CPU(), false, slot->stored.dtype());
      CopyFromTo(slot->merged, value);
      slot->stored = value;
      slot->shared = false;
    } else {
      // The sum becomes the value: never written again, so pulls can send it as it is.
      slot->stored = slot->merged;
      slot->shared = true;
    }
    slot->stored.WaitToRead();
    for (const Message& req : slot->waiting) Reply(req, "");
    slot->waiting.clear();
    ResetRound(slot);
  }

  void ResetRound(Slot* slot) {
    if (!slot->acc.is_none() && !slot->merged.is_none() &&
        slot->merged.var() == slot->acc.var()) {
      slot->acc.WaitToWrite();  // the updater's reads of it are done
      if (slot->dense_round) {
        std::memset(slot->acc.data().dptr_, 0, slot->shape.Size() * DTypeSize(slot->acc.dtype()));
      } else {
        ZeroRows(slot->acc, slot->rows);
      }
    }
    slot->merged = NDArray();
    slot->rows.clear();
    slot->dense_round = false;
    slot->count = 0;
  }

  // Answer the pushes of a round that can no longer complete with an error.
  void FailRound(Slot* slot) {
    if (slot->waiting.empty()) return;
    std::string who;
    for (const std::string& r : left_workers_) who += (who.empty() ? "" : ", ") + r;
    const std::string error =
        "KVStore dist_sync: worker rank " + who + " left the job (its KVStore closed) while " +
        "this push of key " + std::to_string(slot->waiting[0].head.key) +
        " waited for the pushes of every worker: the workers ran different numbers of steps";
    for (const Message& req : slot->waiting) Reply(req, error);
    slot->waiting.clear();
    ResetRound(slot);
  }

  void HandlePull(const Message& msg) {
    auto it = slots_.find({msg.head.key, msg.head.part});
    CHECK(it != slots_.end() && !it->second.stored.is_none())
        << "KVStore server: pull of " << KeyName(msg) << " before it was initialized";
    Slot& slot = it->second;
    slot.stored.WaitToRead();
    if (msg.head.flags & kFlagRowSparse) {  // the rows asked for, copied
      std::vector<int64_t> ids;
      const std::string bad = DecodeRowIds(msg.body, slot.shape[0], &ids);
      CHECK(bad.empty()) << "KVStore server: row_sparse_pull of " << KeyName(msg) << ": " << bad;
      CHECK(DTypeSize(msg.head.dtype) > 0)
          << "KVStore server: row_sparse_pull of " << KeyName(msg) << " into dtype "
          << msg.head.dtype;
      std::shared_ptr<std::string> rows = CopyRows(slot.stored, ids, msg.head.dtype);
      Reply(msg, "", rows->data(), rows->size(), rows);
      return;
    }
    // Sent without a copy: a value written in place later is first copied (OwnStored).
    slot.shared = true;
    auto keep = std::make_shared<NDArray>(slot.stored);
    Reply(msg, "", static_cast<const char*>(keep->data().dptr_),
          keep->shape().Size() * DTypeSize(keep->dtype()), keep);
  }

  void HandleCommand(const Message& msg) {
    switch (static_cast<Command>(msg.head.cmd)) {
      case Command::kStopServer:
        stop_ = true;
        break;
      case Command::kSyncMode:
        sync_mode_ = true;
        break;
      case Command::kSetGradientCompression:
        if (gc_.type() != CompressionType::kNone && gc_.EncodeParams() != msg.body) {
          return Reply(msg, "workers set different gradient compressions (type,threshold " +
                                gc_.EncodeParams() + " and " + msg.body + ")");
        }
        gc_.DecodeParams(msg.body);
        break;
      case Command::kSetMultiPrecision:
        // The pickled optimizer keeps float32 master weights itself
        // (multi_precision).
        break;
      case Command::kWorkerLeaving:
        left_workers_.insert(msg.body);
        if (sync_mode_) {
          for (auto& kv : slots_) FailRound(&kv.second);
        }
        break;
      case Command::kSetProfilerParams:
        LOG(INFO) << "KVStore server: profiler commands are not supported; ignored";
        break;
      default:
        if (controller_) controller_(msg.head.cmd, msg.body);
    }
    Reply(msg, "");
  }

  KVStore::Controller controller_;
  std::function<KVStore::Updater()> updater_;
  PostOffice* po_;
  GradientCompression gc_;
  bool sync_mode_{false};
  bool stop_{false};
  std::map<std::pair<int, int>, Slot> slots_;
  std::set<std::string> left_workers_;  // ranks of workers whose store closed
};

}  // namespace

void RunServerLoop(const KVStore::Controller& controller,
                   const std::function<KVStore::Updater()>& updater) {
  Server server(controller, updater);
  server.Run();
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
