// KVStoreDist: the worker side of the distributed store. Values pushed from
// this worker's devices are summed locally (KVStoreLocal's Comm), then each
// key's sum goes to the servers that hold its parts (2-bit codes when
// compression is set, residual kept here); a pull fetches the parts back. Both
// are asynchronous engine ops completed by the servers' replies, ordered per
// key by a variable: a pull waits for the key's push, a push for its pull.
// Row_sparse gradients and row_sparse_pull move rows only (row_sparse.h).
#include "kvstore/dist/kvstore_dist.h"

#include <dmlc/logging.h>

#include <atomic>
#include <cmath>
#include <future>
#include <mutex>
#include <numeric>
#include <unordered_map>

#include "common/env.h"
#include "kvstore/dist/customer.h"
#include "kvstore/dist/message.h"
#include "kvstore/dist/postoffice.h"
#include "kvstore/dist/priority_sender.h"
#include "kvstore/dist/row_sparse.h"
#include "kvstore/kvstore_local.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace kvstore {
namespace dist {

KeyLayout MakeKeyLayout(int key, int64_t num_elems, int num_servers, int64_t bigarray_bound,
                        int64_t row_len) {
  KeyLayout layout;
  const int64_t words = TwoBitCompressedSize(num_elems);
  auto add = [&](int server, int64_t begin, int64_t len, int64_t cbegin, int64_t clen) {
    if (len <= 0) return;
    layout.server.push_back(server);
    layout.begin.push_back(begin);
    layout.len.push_back(len);
    layout.cbegin.push_back(cbegin);
    layout.clen.push_back(clen);
  };
  if (num_elems < bigarray_bound || num_servers == 1) {
    add(static_cast<int>((static_cast<int64_t>(key) * 9973) % num_servers), 0, num_elems, 0, words);
    return layout;
  }
  // Cut in units of lcm(16, row_len) elements (whole words and whole rows) while there are
  // enough units for every server; else in words.
  const int64_t unit_elems = row_len > 0 ? std::lcm(int64_t{16}, row_len) : 16;
  int64_t unit_words = unit_elems / 16;
  if ((words + unit_words - 1) / unit_words < num_servers) unit_words = 1;
  const int64_t units = (words + unit_words - 1) / unit_words;
  int64_t begin = 0, cbegin = 0;
  for (int i = 0; i < num_servers; ++i) {
    const double per = static_cast<double>(units) / num_servers;
    const int64_t clen =
        i == num_servers - 1
            ? words - cbegin
            : (static_cast<int64_t>(std::round(per * (i + 1))) -
               static_cast<int64_t>(std::round(per * i))) * unit_words;
    const int64_t len =
        i == num_servers - 1 ? num_elems - begin : std::min(clen * 16, num_elems - begin);
    add(i, begin, len, cbegin, clen);
    begin += len;
    cbegin += clen;
  }
  return layout;
}

KeyLayout MakeP3KeyLayout(int64_t num_elems, int num_servers, int64_t slice_threshold,
                          int* next_server) {
  CHECK_GT(slice_threshold, 0) << "MXNET_KVSTORE_SLICE_THRESHOLD must be at least 1, given "
                               << slice_threshold;
  KeyLayout layout;
  for (int64_t begin = 0; begin < num_elems; begin += slice_threshold) {
    layout.server.push_back((*next_server)++ % num_servers);
    layout.begin.push_back(begin);
    layout.len.push_back(std::min(slice_threshold, num_elems - begin));
    layout.cbegin.push_back(0);  // dist_p3 has no gradient compression
    layout.clen.push_back(0);
  }
  return layout;
}

namespace {

constexpr const char* kP3UpdaterInstead =
    "run the optimizer on the servers (set_optimizer, Trainer(update_on_kvstore=True)) or "
    "update on the workers with the pulled sum (MXNET_UPDATE_ON_KVSTORE=0)";

class KVStoreDist : public KVStoreLocal {
 public:
  KVStoreDist(bool use_device_comm, bool p3)
      : KVStoreLocal(use_device_comm), po_(PostOffice::Get()), p3_(p3) {
    bigarray_bound_ = env::GetInt("MXNET_KVSTORE_BIGARRAY_BOUND");
    if (!IsWorkerNode()) return;
    if (p3_) {
      slice_threshold_ = env::GetInt("MXNET_KVSTORE_SLICE_THRESHOLD");
      PostOffice* po = po_;
      sender_ = std::make_shared<PrioritySender>(
          static_cast<int>(env::GetInt("DMLC_PS_WATER_MARK")), [po](int dest, Message&& m) {
            try {
              po->Send(dest, std::move(m));
            } catch (const dmlc::Error&) {
              // The job failed: the customer fails the request.
            }
          });
    }
    // One store per worker process: replies and keys are not told apart between stores.
    if (live_workers_.fetch_add(1) != 0) {
      live_workers_.fetch_sub(1);
      LOG(FATAL) << "KVStore.create('dist_*'): this worker process already has a distributed "
                    "store; a process joins its job with one store (pass that KVStore object "
                    "around, e.g. gluon.Trainer(..., kvstore=kv))";
    }
    try {
      po_->Start();
    } catch (...) {
      live_workers_.fetch_sub(1);  // no store was made: the destructor will not run
      throw;
    }
    owns_slot_ = true;
    std::shared_ptr<Customer> customer = customer_;
    std::shared_ptr<PrioritySender> sender = sender_;
    po_->SetAppHandler([customer, sender](Message&& m) {
      if (m.head.type != MsgType::kReply) return;
      if (sender) sender->OnReply(m.head.request_id, m.head.part);
      if (m.head.flags & kFlagReceipt) return;  // a push arrived; its answer comes later
      customer->OnReply(m);
    });
    po_->AddFailureListener([customer, sender](const std::string& why) {
      if (sender) sender->Clear();
      customer->FailAll(why);
    });
  }

  ~KVStoreDist() override {
    if (!owns_slot_) return;
    try {
      Engine::Get()->WaitForAll();
    } catch (const std::exception& e) {
      LOG(ERROR) << "KVStore(" << type_ << "): " << e.what();
    }
    try {
      if (po_->failure().empty()) {
        if (barrier_before_exit_) {
          SendCommandToServers(static_cast<int>(Command::kWorkerLeaving),
                               std::to_string(get_rank()));
          Barrier();
          if (get_rank() == 0) {
            SendCommandToServers(static_cast<int>(Command::kStopServer), "");
          }
        }
        po_->Finalize(barrier_before_exit_);
      }
    } catch (const std::exception& e) {
      LOG(ERROR) << "KVStore(" << type_ << ") could not leave the job cleanly: " << e.what();
    }
    for (auto& kv : push_vars_) {
      Engine::Get()->DeleteVariable([](RunContext) {}, Context::CPU(), kv.second);
    }
    live_workers_.fetch_sub(1);
  }

  int get_rank() const override { return IsWorkerNode() ? po_->my_rank() : 0; }
  int get_group_size() const override { return po_->num_workers(); }
  int get_num_dead_node(int node_id, int timeout_sec) const override {
    return po_->num_dead_nodes();
  }
  void Barrier() override { po_->Barrier(kWorkerGroup); }

  void Pull(const std::vector<int>& keys, const std::vector<NDArray*>& values, int priority,
            bool ignore_sparse) override {
    CheckIgnoreSparse(ignore_sparse);
    KVStoreLocal::Pull(keys, values, priority, ignore_sparse);
  }
  void Pull(const std::vector<std::string>& keys, const std::vector<NDArray*>& values, int priority,
            bool ignore_sparse) override {
    CheckIgnoreSparse(ignore_sparse);
    KVStoreLocal::Pull(keys, values, priority, ignore_sparse);
  }

  void SendCommandToServers(int cmd_id, const std::string& cmd_body) override {
    CHECK(IsWorkerNode()) << "KVStore: only workers send commands to the servers";
    std::promise<std::string> result;
    const int n = po_->num_servers();
    const int id = customer_->NewRequest(
        n, nullptr, [&result](const std::string& error) { result.set_value(error); });
    for (int r = 0; id >= 0 && r < n; ++r) {
      Message m;
      m.head.type = MsgType::kCommand;
      m.head.request_id = id;
      m.head.cmd = cmd_id;
      m.body = cmd_body;
      SendQuietly(ServerRankToId(r), std::move(m));
    }
    const std::string error = result.get_future().get();
    CHECK(error.empty()) << "KVStore: server command " << cmd_id << " failed: " << error;
  }

  void set_updater(const Updater& updater) override {
    CheckNotP3Worker("an updater in the worker (_set_updater)", kP3UpdaterInstead);
    KVStoreLocal::set_updater(updater);
  }
  void set_updater(const StrUpdater& updater) override {
    CheckNotP3Worker("an updater in the worker (_set_updater)", kP3UpdaterInstead);
    KVStoreLocal::set_updater(updater);
  }

  void SetGradientCompression(
      const std::vector<std::pair<std::string, std::string>>& kwargs) override {
    CheckNotP3Worker("gradient compression", "use 'dist_sync' to compress gradients");
    const std::string before = gc_->EncodeParams();
    KVStoreLocal::SetGradientCompression(kwargs);
    // Every worker (MXNet 1.9.1: worker 0 only) sends its setting and waits for the servers to
    // take it, so its own first compressed push can never reach a server before the setting.
    // Refused (another worker set a different one), the worker keeps its earlier setting.
    if (IsWorkerNode()) {
      try {
        SendCommandToServers(static_cast<int>(Command::kSetGradientCompression),
                             gc_->EncodeParams());
      } catch (const dmlc::Error&) {
        gc_->DecodeParams(before);
        throw;
      }
    }
  }

  void RunServer(const Controller& controller) override {
    CHECK(!IsWorkerNode()) << "KVStore.RunServer: this process is a worker (DMLC_ROLE)";
    po_->Start();
    if (IsServerNode()) {
      RunServerLoop(controller, [this] { return updater_; });
    }
    po_->Finalize(true);
  }

 protected:
  void InitImpl(const std::vector<int>& keys, const std::vector<NDArray>& values) override {
    CHECK_EQ(keys.size(), values.size())
        << "KVStore.init: " << keys.size() << " keys for " << values.size() << " values";
    for (size_t i = 0; i < keys.size(); ++i) {
      const int key = keys[i];
      CheckNewKey(key, values[i]);
      // local_ holds the buffer pulls land in; the value itself lives on the
      // servers.
      const TShape& shape = values[i].shape();
      local_[key] = NDArray(shape, Context::CPU(), true, values[i].dtype());
      comm_->Init(key, shape, values[i].dtype());
      const int64_t size = static_cast<int64_t>(shape.Size());
      KeyLayout& layout = layouts_[key];
      if (values[i].storage_type() == kRowSparseStorage) {
        // As MXNet 1.9.1 (also for dist_p3): row_sparse keys are cut into whole rows.
        layout = MakeRowSparseKeyLayout(key, shape[0], RowLength(shape),
                                        po_->num_servers(), bigarray_bound_);
        CHECK_GT(layout.row_len, 0) << "KVStore.init: row_sparse key " << KeyName(key)
                                    << " of shape " << shape << " has no rows";
      } else {
        layout = p3_ ? MakeP3KeyLayout(size, po_->num_servers(), slice_threshold_,
                                       &next_p3_server_)
                     : MakeKeyLayout(key, size, po_->num_servers(), bigarray_bound_,
                                     RowLength(shape));
        layout.row_len = RowAlignment(layout, shape);
      }
      push_vars_[key] = Engine::Get()->NewVariable();
    }
    if (get_rank() == 0) {
      for (size_t i = 0; i < keys.size(); ++i) {
        // The servers get the whole value (a row_sparse one with its missing rows as zeros).
        NDArray value = CastStorage(values[i], kDefaultStorage);
        if (value.ctx().dev_mask() != Context::kCPU) value = value.Copy(Context::CPU());
        PushToServers(keys[i], value, kFlagInit, 0);
      }
      for (int key : keys) Engine::Get()->WaitForVar(push_vars_[key]);
    }
    Barrier();
  }

  void PushImpl(const std::vector<int>& keys, const std::vector<NDArray>& values,
                int priority) override {
    CheckInited(keys, "push");
    std::vector<int> uniq;
    std::vector<std::vector<NDArray>> grouped;
    Group(keys, values, &uniq, &grouped);
    for (size_t i = 0; i < uniq.size(); ++i) {
      const int key = uniq[i];
      NDArray merged = AllRowSparse(grouped[i]) ? SumRowSparse(key, grouped[i])
                                                : CheckedReduce(key, grouped[i], priority);
      if (merged.storage_type() == kRowSparseStorage) {
        CHECK(gc_->type() == CompressionType::kNone)
            << "KVStore.push: key " << KeyName(key) << ": gradient compression for row sparse "
            << "storage type is not supported (as MXNet 1.9.1); push dense gradients or unset "
               "compression";
        if (layouts_.at(key).row_len > 0) {
          if (merged.ctx().dev_mask() != Context::kCPU) {
            NDArray host(kRowSparseStorage, merged.shape(), Context::CPU(), true, merged.dtype());
            CopyFromTo(merged, host, priority);
            merged = host;
          }
          PushRowSparseToServers(Link(), key, layouts_.at(key), merged, push_vars_.at(key),
                                 priority);
          continue;
        }
        // A dense key cut across servers mid-row: its parts take the dense gradient.
        merged = CastStorage(merged, kDefaultStorage);
      }
      if (merged.ctx().dev_mask() != Context::kCPU) {
        NDArray& host = send_bufs_[key];
        if (host.is_none()) host = NDArray(merged.shape(), Context::CPU(), false, merged.dtype());
        CopyFromTo(merged, host, priority);
        merged = host;
      }
      if (gc_->type() == CompressionType::kNone) {
        PushToServers(key, merged, 0, priority);
        continue;
      }
      CHECK(layouts_.at(key).clen.empty() || layouts_.at(key).clen[0] > 0)
          << "KVStore.push: key " << KeyName(key) << " was initialized row_sparse: gradient "
          << "compression for row sparse storage type is not supported (as MXNet 1.9.1)";
      CHECK_EQ(merged.dtype(), kFloat32)
          << "KVStore.push: 2-bit gradient compression takes float32 values, "
             "key "
          << KeyName(key) << " is " << DTypeName(merged.dtype());
      NDArray& residual = residuals_[key];
      NDArray& codes = codes_[key];
      if (residual.is_none()) {
        const int64_t n = static_cast<int64_t>(merged.shape().Size());
        residual = NDArray(TShape({n}), Context::CPU(), false, kFloat32);
        std::vector<float> zeros(n, 0.f);
        residual.SyncCopyFromCPU(zeros.data(), zeros.size());
        codes = NDArray(TShape({TwoBitCompressedSize(n)}), Context::CPU(), false, kFloat32);
      }
      gc_->Quantize(merged, &codes, &residual, priority);
      PushToServers(key, codes, kFlagCompressed, priority);
    }
  }

  void PullImpl(const std::vector<int>& keys, const std::vector<NDArray*>& outs,
                int priority) override {
    CheckInited(keys, "pull");
    std::vector<int> uniq;
    std::vector<std::vector<NDArray*>> grouped;
    Group(keys, outs, &uniq, &grouped);
    for (size_t i = 0; i < uniq.size(); ++i) {
      const int key = uniq[i];
      for (NDArray* o : grouped[i]) {
        CHECK(o != nullptr && !o->is_none())
            << "KVStore.pull: an output of key " << KeyName(key) << " is empty";
      }
      NDArray recv = local_[key];
      PullFromServers(key, recv, priority);
      comm_->Broadcast(key, recv, grouped[i], priority);
    }
  }

  // row_sparse_pull: rows only, from the parts holding them, when the key is laid out in
  // rows; otherwise the whole value is pulled and the rows kept (KVStoreLocal's way).
  void PullRowSparseImpl(const std::vector<int>& keys,
                         const std::vector<std::pair<NDArray*, NDArray>>& val_rowids,
                         int priority) override {
    CHECK_EQ(keys.size(), val_rowids.size())
        << "KVStore.row_sparse_pull: " << keys.size() << " keys but " << val_rowids.size()
        << " outputs";
    CheckInited(keys, "row_sparse_pull");
    for (size_t i = 0; i < keys.size(); ++i) {
      const int key = keys[i];
      NDArray* out = val_rowids[i].first;
      CHECK(out != nullptr && out->storage_type() == kRowSparseStorage)
          << "KVStore.row_sparse_pull: argument out expected row_sparse arrays, given storage "
             "type "
          << (out ? out->storage_type() : -1);
      CHECK_EQ(out->shape(), local_.at(key).shape())
          << "KVStore.row_sparse_pull: key " << KeyName(key) << " has shape "
          << local_.at(key).shape() << ", given an output of shape " << out->shape();
      const KeyLayout& layout = layouts_.at(key);
      if (layout.row_len == 0) {
        KVStoreLocal::PullRowSparseImpl({key}, {val_rowids[i]}, priority);
        continue;
      }
      NDArray row_ids = CastStorage(val_rowids[i].second, kDefaultStorage);
      if (row_ids.ctx().dev_mask() != Context::kCPU) row_ids = row_ids.Copy(Context::CPU());
      NDArray target = *out;
      if (out->ctx().dev_mask() != Context::kCPU) {
        target = NDArray(kRowSparseStorage, out->shape(), Context::CPU(), true, out->dtype());
      }
      PullRowSparseFromServers(Link(), key, layout, row_ids, target, push_vars_.at(key),
                               priority);
      if (target.var() != out->var()) CopyFromTo(target, *out, priority);
    }
  }

 private:
  void CheckNotP3Worker(const char* what, const char* instead) const {
    if (!p3_ || !IsWorkerNode()) return;
    LOG(FATAL) << "NotImplementedError: KVStore('dist_p3') does not support " << what
               << ", as in MXNet 1.9.1; " << instead;
  }

  // As MXNet 1.9.1: row_sparse outputs of a distributed store are filled by row_sparse_pull.
  static void CheckIgnoreSparse(bool ignore_sparse) {
    CHECK(ignore_sparse) << "KVStore.pull: dist kvstore pull doesn't support ignore_sparse=False "
                            "(use row_sparse_pull for row_sparse outputs)";
  }

  ServerLink Link() const { return ServerLink{po_, customer_, sender_}; }

  static bool AllRowSparse(const std::vector<NDArray>& values) {
    for (const NDArray& v : values) {
      if (v.storage_type() != kRowSparseStorage) return false;
    }
    return true;
  }

  // The sum of a key's row_sparse values from this worker's devices, kept row_sparse (the
  // rows of any of them) so the servers update only those rows.
  NDArray SumRowSparse(int key, const std::vector<NDArray>& values) {
    for (const NDArray& v : values) {
      CHECK_EQ(v.shape(), local_.at(key).shape())
          << "KVStore.push: key " << KeyName(key) << " was initialized with shape "
          << local_.at(key).shape() << ", given a value of shape " << v.shape();
    }
    if (values.size() == 1) return values[0];
    static const nnvm::Op* add_n = nnvm::Op::GetOrThrow("add_n");
    std::vector<NDArray> in(values);
    std::vector<NDArray*> inputs;
    for (NDArray& v : in) inputs.push_back(&v);
    std::vector<NDArray> sum;
    Imperative::Get()->Invoke(in[0].ctx(),
                              Imperative::ParseAttrs(add_n, {}, static_cast<int>(in.size())),
                              inputs, &sum);
    return sum[0];
  }

  // Send a message; a failed job fails the request through the customer, so the
  // throw of a send after the failure is not needed here.
  void SendQuietly(int node, Message msg) {
    try {
      po_->Send(node, std::move(msg));
    } catch (const dmlc::Error&) {
    }
  }

  // An engine op sending data (the key's values, or its 2-bit codes when
  // compressed) to the servers; done when every server holding a part has
  // replied.
  void PushToServers(int key, const NDArray& data, int32_t flags, int priority) {
    const KeyLayout& layout = layouts_.at(key);
    std::shared_ptr<Customer> customer = customer_;
    PostOffice* po = po_;
    const int dtype = local_[key].dtype();
    std::shared_ptr<PrioritySender> sender = sender_;
    // An init tells each server the shape of its part (rows and shape[1:]) when the key is
    // laid out in rows.
    std::vector<std::string> bodies(layout.server.size());
    for (size_t p = 0; (flags & kFlagInit) && layout.row_len > 0 && p < bodies.size(); ++p) {
      const TShape part = PartShape(layout, local_[key].shape(), p);
      std::vector<int64_t> dims(part.begin(), part.end());
      bodies[p] = EncodeInt64s(dims.data(), dims.size());
    }
    Engine::Get()->PushAsync(
        [=](RunContext, CallbackOnComplete cb) {
          const int parts = static_cast<int>(layout.server.size());
          const int id = customer->NewRequest(
              parts, nullptr, [cb](const std::string& error) { CompleteOp(cb, error); });
          if (id < 0) return;
          const bool compressed = (flags & kFlagCompressed) != 0;
          const size_t elem = compressed ? sizeof(float) : DTypeSize(dtype);
          const char* base = static_cast<const char*>(data.data().dptr_);
          auto owner = std::make_shared<NDArray>(data);
          for (int p = 0; p < parts; ++p) {
            Message m = PartRequest(MsgType::kPush, id, key, p, dtype, layout.len[p],
                                    sender ? flags | kFlagReceipt : flags);
            m.body = bodies[p];
            const int64_t first = compressed ? layout.cbegin[p] : layout.begin[p];
            const int64_t count = compressed ? layout.clen[p] : layout.len[p];
            m.payload = base + first * elem;
            m.payload_size = count * elem;
            m.payload_owner = owner;
            SendPart(po, sender, priority, ServerRankToId(layout.server[p]), std::move(m));
          }
        },
        Context::CPU(), {data.var()}, {push_vars_.at(key)}, FnProperty::kNormal, priority,
        "KVStoreDistPush");
  }

  // An engine op filling recv with the key's parts from the servers.
  void PullFromServers(int key, const NDArray& recv, int priority) {
    const KeyLayout& layout = layouts_.at(key);
    std::shared_ptr<Customer> customer = customer_;
    PostOffice* po = po_;
    std::shared_ptr<PrioritySender> sender = sender_;
    Engine::Get()->PushAsync(
        [=](RunContext, CallbackOnComplete cb) {
          const int parts = static_cast<int>(layout.server.size());
          const size_t elem = DTypeSize(recv.dtype());
          char* base = static_cast<char*>(recv.data().dptr_);
          auto on_part = [=](const Message& m) -> std::string {
            const int p = m.head.part;
            if (p < 0 || p >= parts || m.payload_size != layout.len[p] * elem) {
              return "KVStore.pull: key " + std::to_string(key) + ": a server sent " +
                     std::to_string(m.payload_size) + " bytes for part " + std::to_string(p);
            }
            std::memcpy(base + layout.begin[p] * elem, m.payload, m.payload_size);
            return "";
          };
          const int id = customer->NewRequest(
              parts, on_part, [cb](const std::string& error) { CompleteOp(cb, error); });
          for (int p = 0; id >= 0 && p < parts; ++p) {
            SendPart(po, sender, priority, ServerRankToId(layout.server[p]),
                     PartRequest(MsgType::kPull, id, key, p, recv.dtype(), layout.len[p]));
          }
        },
        Context::CPU(), {push_vars_.at(key)}, {recv.var()}, FnProperty::kNormal, priority,
        "KVStoreDistPull");
  }

  static std::atomic<int> live_workers_;
  bool owns_slot_{false};
  PostOffice* po_;
  std::shared_ptr<Customer> customer_ = std::make_shared<Customer>();
  int64_t bigarray_bound_{1000000};
  const bool p3_;
  int64_t slice_threshold_{40000};
  int next_p3_server_{0};                   // dist_p3: slices go to servers round-robin
  std::shared_ptr<PrioritySender> sender_;  // dist_p3 workers only
  std::unordered_map<int, KeyLayout> layouts_;
  std::unordered_map<int, VarHandle> push_vars_;
  std::unordered_map<int, NDArray> send_bufs_, residuals_, codes_;
};

std::atomic<int> KVStoreDist::live_workers_{0};

}  // namespace

std::unique_ptr<KVStore> CreateKVStoreDist(const std::string& type) {
  auto kv = std::make_unique<KVStoreDist>(type.find("device") != std::string::npos,
                                          type.find("_p3") != std::string::npos);
  return kv;
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
