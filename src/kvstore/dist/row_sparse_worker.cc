// The worker's engine operations for row-sparse keys (row_sparse.h): push the rows of a
// row_sparse gradient to the parts that hold them; pull the rows a row_sparse_pull asks for.
#include <dmlc/logging.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/type_switch.h"
#include "kvstore/dist/row_sparse.h"

namespace mxnet {
namespace kvstore {
namespace dist {
namespace {

// The first row of part p and its rows.
int64_t FirstRow(const KeyLayout& layout, size_t p) { return layout.begin[p] / layout.row_len; }
int64_t NumRows(const KeyLayout& layout, size_t p) { return layout.len[p] / layout.row_len; }

// Row ids of any dtype as sorted, unique int64s; "" or what is wrong.
std::string UniqueRowIds(const NDArray& row_ids, int64_t num_rows, int key,
                         std::vector<int64_t>* ids) {
  const int64_t n = static_cast<int64_t>(row_ids.shape().Size());
  ids->resize(n);
  std::string error;
  MXNET_TYPE_SWITCH(row_ids.dtype(), DType, {
    const DType* src = row_ids.data().dptr<DType>();
    for (int64_t i = 0; i < n && error.empty(); ++i) {
      using Wide = typename std::conditional<std::is_integral<DType>::value, int64_t,
                                             double>::type;
      const Wide v = static_cast<Wide>(
          static_cast<typename std::conditional<std::is_same<DType, half_t>::value, float,
                                                DType>::type>(src[i]));
      const int64_t r = static_cast<int64_t>(v);
      if (static_cast<Wide>(r) != v || r < 0 || r >= num_rows) {
        error = "KVStore.row_sparse_pull: row id " + std::to_string(static_cast<double>(v)) +
                " of key " + std::to_string(key) + " is not a row of its " +
                std::to_string(num_rows) + " rows";
      }
      (*ids)[i] = r;
    }
  });
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  return error;
}

}  // namespace

void PushRowSparseToServers(const ServerLink& link, int key, const KeyLayout& layout,
                            const NDArray& rsp, VarHandle push_var, int priority) {
  CHECK_GT(layout.row_len, 0) << "KVStore: key " << key << " is not laid out in rows";
  ServerLink l = link;
  Engine::Get()->PushAsync(
      [l, key, layout, rsp, priority](RunContext, CallbackOnComplete cb) {
        const int parts = static_cast<int>(layout.server.size());
        const int id = l.customer->NewRequest(
            parts, nullptr, [cb](const std::string& error) { CompleteOp(cb, error); });
        if (id < 0) return;
        const int64_t nnz = rsp.storage_initialized() ? rsp.aux_shape(0)[0] : 0;
        const int64_t* idx = nnz > 0 ? rsp.aux_data(0).dptr<int64_t>() : nullptr;
        const size_t row_bytes = layout.row_len * DTypeSize(rsp.dtype());
        const char* rows = nnz > 0 ? static_cast<const char*>(rsp.data().dptr_) : nullptr;
        auto owner = std::make_shared<NDArray>(rsp);
        for (int p = 0; p < parts; ++p) {
          const int64_t first = FirstRow(layout, p), end = first + NumRows(layout, p);
          const int64_t lo = std::lower_bound(idx, idx + nnz, first) - idx;
          const int64_t hi = std::lower_bound(idx, idx + nnz, end) - idx;
          std::vector<int64_t> rel(idx + lo, idx + hi);
          for (int64_t& r : rel) r -= first;
          Message m = PartRequest(MsgType::kPush, id, key, p, rsp.dtype(),
                                  (hi - lo) * layout.row_len,
                                  kFlagRowSparse | (l.sender ? kFlagReceipt : 0));
          m.body = EncodeInt64s(rel.data(), rel.size());
          if (hi > lo) {
            m.payload = rows + lo * row_bytes;
            m.payload_size = (hi - lo) * row_bytes;
            m.payload_owner = owner;
          }
          SendPart(l.po, l.sender, priority, ServerRankToId(layout.server[p]), std::move(m));
        }
      },
      Context::CPU(), {rsp.var()}, {push_var}, FnProperty::kNormal, priority,
      "KVStoreDistRowSparsePush");
}

void PullRowSparseFromServers(const ServerLink& link, int key, const KeyLayout& layout,
                              const NDArray& row_ids, const NDArray& out, VarHandle push_var,
                              int priority) {
  CHECK_GT(layout.row_len, 0) << "KVStore: key " << key << " is not laid out in rows";
  ServerLink l = link;
  const int64_t num_rows = out.shape()[0];
  Engine::Get()->PushAsync(
      [l, key, layout, row_ids, out, num_rows, priority](RunContext, CallbackOnComplete cb) {
        auto ids = std::make_shared<std::vector<int64_t>>();
        const std::string bad = UniqueRowIds(row_ids, num_rows, key, ids.get());
        if (!bad.empty()) return CompleteOp(cb, bad);
        const int64_t n = static_cast<int64_t>(ids->size());
        out.CheckAndAlloc({TShape({n})});
        if (n > 0) std::memcpy(out.aux_data(0).dptr_, ids->data(), n * sizeof(int64_t));
        const size_t row_bytes = layout.row_len * DTypeSize(out.dtype());
        char* rows = n > 0 ? static_cast<char*>(out.data().dptr_) : nullptr;
        // Parts holding asked-for rows, and where their rows start in ids.
        std::vector<int> asked;
        std::vector<int64_t> lo, hi;
        for (size_t p = 0; p < layout.server.size(); ++p) {
          const int64_t first = FirstRow(layout, p), end = first + NumRows(layout, p);
          const int64_t a = std::lower_bound(ids->begin(), ids->end(), first) - ids->begin();
          const int64_t b = std::lower_bound(ids->begin(), ids->end(), end) - ids->begin();
          if (b == a) continue;
          asked.push_back(static_cast<int>(p));
          lo.push_back(a);
          hi.push_back(b);
        }
        if (asked.empty()) return CompleteOp(cb, "");
        auto on_part = [=](const Message& m) -> std::string {
          const auto it = std::find(asked.begin(), asked.end(), m.head.part);
          if (it == asked.end()) return "KVStore.row_sparse_pull: a reply for an unknown part";
          const size_t i = it - asked.begin();
          const size_t want = (hi[i] - lo[i]) * row_bytes;
          if (m.payload_size != want) {
            return "KVStore.row_sparse_pull: key " + std::to_string(key) + ": a server sent " +
                   std::to_string(m.payload_size) + " bytes for " +
                   std::to_string(hi[i] - lo[i]) + " rows of " + std::to_string(row_bytes);
          }
          std::memcpy(rows + lo[i] * row_bytes, m.payload, want);
          return "";
        };
        const int id = l.customer->NewRequest(
            static_cast<int>(asked.size()), on_part,
            [cb](const std::string& error) { CompleteOp(cb, error); });
        for (size_t i = 0; id >= 0 && i < asked.size(); ++i) {
          const int p = asked[i];
          std::vector<int64_t> rel(ids->begin() + lo[i], ids->begin() + hi[i]);
          for (int64_t& r : rel) r -= FirstRow(layout, p);
          Message m = PartRequest(MsgType::kPull, id, key, p, out.dtype(),
                                  (hi[i] - lo[i]) * layout.row_len, kFlagRowSparse);
          m.body = EncodeInt64s(rel.data(), rel.size());
          SendPart(l.po, l.sender, priority, ServerRankToId(layout.server[p]), std::move(m));
        }
      },
      Context::CPU(), {row_ids.var(), push_var}, {out.var()}, FnProperty::kNormal, priority,
      "KVStoreDistRowSparsePull");
}

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet
