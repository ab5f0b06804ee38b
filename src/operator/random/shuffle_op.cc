// _shuffle: random permutation of an array along its first axis (Fisher-Yates with one
// Philox stream per position, so the permutation depends only on the seed and the call).
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "operator/random/sampler.h"

namespace mxnet {
namespace op {
namespace {

void ShuffleCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator " << attrs.op->name << " does not support req=add";
  const TBlob& x = in[0];
  const size_t bytes = x.Size() * DTypeSize(x.type_flag_);
  const char* src = static_cast<const char*>(x.dptr_);
  char* dst = static_cast<char*>(out[0].dptr_);
  if (x.ndim() == 0 || x.shape_[0] <= 1) {
    if (dst != src) std::memcpy(dst, src, bytes);
    return;
  }
  const index_t n = x.shape_[0];
  const size_t row = bytes / n;
  // perm[r] = the input row that lands at output row r.
  index_t* perm = static_cast<index_t*>(ctx.RequestTempSpace(n * sizeof(index_t) + row));
  std::iota(perm, perm + n, index_t(0));
  for (index_t i = n - 1; i > 0; --i) {
    RandomStream rs(ctx.random_seed, ctx.random_stream, static_cast<uint64_t>(i));
    const index_t j = static_cast<index_t>(rs.NextU64() % static_cast<uint64_t>(i + 1));
    std::swap(perm[i], perm[j]);
  }
  if (dst != src) {
    ParallelFor(n, [&](index_t r) { std::memcpy(dst + r * row, src + perm[r] * row, row); });
    return;
  }
  // In place: follow the cycles of the permutation with one row of scratch.
  char* hold = reinterpret_cast<char*>(perm + n);
  std::vector<bool> done(n, false);
  for (index_t start = 0; start < n; ++start) {
    if (done[start] || perm[start] == start) continue;
    std::memcpy(hold, dst + start * row, row);
    index_t r = start;
    while (perm[r] != start) {
      std::memcpy(dst + r * row, dst + perm[r] * row, row);
      done[r] = true;
      r = perm[r];
    }
    std::memcpy(dst + r * row, hold, row);
    done[r] = true;
  }
}

}  // namespace

NNVM_REGISTER_OP(_shuffle)
    .add_alias("shuffle")
    .describe(R"doc(Randomly shuffle the elements.

This shuffles the array along the first axis. The order of the elements in each subarray does
not change: for a 2-D array the rows are permuted, each row staying intact.
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .add_argument("data", "NDArray-or-Symbol", "Data to be shuffled.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FResourceRequest>("FResourceRequest", [](const NodeAttrs&) {
      return std::vector<ResourceRequest>{ResourceRequest::kRandom, ResourceRequest::kTempSpace};
    })
    .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
      return std::vector<std::pair<int, int>>{{0, 0}};
    })
    .set_attr<FCompute>("FCompute<cpu>", ShuffleCompute)
    .set_attr<TIsNonDifferentiable>("TIsNonDifferentiable", true);

}  // namespace op
}  // namespace mxnet
