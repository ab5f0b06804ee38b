// Block movers of the indexing operators (see index_blocks.h).
#include "operator/tensor/index_blocks.h"

#include <algorithm>
#include <cstring>

#include "operator/tensor/strided_copy.h"

namespace mxnet {
namespace op {
namespace {

// Elements per work unit when a scatter runs in parallel over columns.
constexpr index_t kColumnChunk = 1024;

template <typename DType>
void GatherBlocksT(const DType* d, const std::vector<int64_t>& offsets, index_t K, DType* o,
                   OpReqType req) {
  const index_t n = static_cast<index_t>(offsets.size());
  if (K == 1) {
    ParallelFor(n, [&](index_t i) { Assign(o + i, req, d[offsets[i]]); });
    return;
  }
  LoopMaybeParallel(n * K >= ParallelGrain(), n, [&](index_t i) {
    const DType* s = d + offsets[i];
    DType* t = o + i * K;
    if (req == kAddTo) {
      for (index_t q = 0; q < K; ++q) t[q] = DType(t[q] + s[q]);
    } else {
      std::memcpy(static_cast<void*>(t), s, K * sizeof(DType));
    }
  });
}

template <bool kSet, typename DType>
void ScatterBlocksT(const DType* s, const std::vector<int64_t>& offsets, index_t K, DType* o,
                    bool unique_offsets) {
  const index_t n = static_cast<index_t>(offsets.size());
  auto put = [&](index_t i, index_t q0, index_t q1) {
    DType* t = o + offsets[i];
    const DType* b = s + i * K;
    for (index_t q = q0; q < q1; ++q) t[q] = kSet ? b[q] : DType(t[q] + b[q]);
  };
  const bool big = n * K >= ParallelGrain();
  if (unique_offsets) {
    LoopMaybeParallel(big, n, [&](index_t i) { put(i, 0, K); });
    return;
  }
  // Columns never collide: each unit walks every block over its own column range, in block
  // order (so repeated offsets give the same result for any thread count).
  const index_t chunks = (K + kColumnChunk - 1) / kColumnChunk;
  LoopMaybeParallel(big && chunks > 1, chunks, [&](index_t c) {
    index_t q0 = c * kColumnChunk, q1 = std::min(K, q0 + kColumnChunk);
    for (index_t i = 0; i < n; ++i) put(i, q0, q1);
  });
}

}  // namespace

std::vector<int64_t> ReadIndices(const TBlob& idx) {
  std::vector<int64_t> v(idx.Size());
  MXNET_TYPE_SWITCH(idx.type_flag_, IType, {
    const IType* p = idx.dptr<IType>();
    ParallelFor(static_cast<index_t>(v.size()), [&](index_t i) { v[i] = IndexAs<IType>(p[i]); });
  });
  return v;
}

void GatherBlocks(int dtype, const void* data, const std::vector<int64_t>& offsets, index_t K,
                  void* out, OpReqType req) {
  if (req == kNullOp || K == 0) return;
  MXNET_TYPE_SWITCH(dtype, DType, {
    GatherBlocksT(static_cast<const DType*>(data), offsets, K, static_cast<DType*>(out), req);
  });
}

template <bool kSet>
void ScatterBlocks(int dtype, const void* src, const std::vector<int64_t>& offsets, index_t K,
                   void* out, bool unique_offsets) {
  if (offsets.empty() || K == 0) return;
  MXNET_TYPE_SWITCH(dtype, DType, {
    ScatterBlocksT<kSet>(static_cast<const DType*>(src), offsets, K, static_cast<DType*>(out),
                         unique_offsets);
  });
}

template void ScatterBlocks<true>(int, const void*, const std::vector<int64_t>&, index_t, void*,
                                  bool);
template void ScatterBlocks<false>(int, const void*, const std::vector<int64_t>&, index_t, void*,
                                   bool);

}  // namespace op
}  // namespace mxnet
