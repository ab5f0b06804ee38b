// Lazy updates with row_sparse gradients: the dense update kernel on the gradient's rows.
#include "operator/optimizer/lazy_update.h"

#include <cstring>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace op {
namespace update {

bool LazyUpdateStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                       std::vector<int>* out) {
  bool dense = true, others_ok = true;
  for (size_t i = 0; i < in->size(); ++i) {
    dense = dense && (*in)[i] == kDefaultStorage;
    if (i != 1) others_ok = others_ok && ((*in)[i] == kDefaultStorage || (*in)[i] == kRowSparseStorage);
  }
  auto it = attrs.dict.find("lazy_update");
  const bool lazy = it == attrs.dict.end() ||
                    !(it->second == "0" || it->second == "False" || it->second == "false");
  for (int& s : *out) s = kDefaultStorage;
  if (dense) {
    *mode = DispatchMode::kFCompute;
  } else if (lazy && others_ok && (*in)[1] == kRowSparseStorage) {
    for (int& s : *out) s = (*in)[0];  // the new weight has the weight's storage type
    *mode = DispatchMode::kFComputeEx;
  } else {
    *mode = DispatchMode::kFComputeFallback;
  }
  return true;
}

namespace {

// The lazy update on dense weight, states and outputs (the gradient row_sparse).
void LazyUpdateDense(const NodeAttrs& attrs, const OpContext& ctx,
                     const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                     const std::vector<NDArray>& out) {
  static const auto& fcompute = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  const FCompute& fn = fcompute[attrs.op];
  const NDArray& grad = in[1];
  const TShape& shape = in[0].shape();
  for (size_t i = 0; i < in.size(); ++i) {
    CHECK(i == 1 || in[i].shape() == shape)
        << "Operator " << attrs.op->name << ": a row_sparse gradient needs every other input "
        << "shaped as the weight " << shape << ", input " << i << " has " << in[i].shape();
  }
  std::vector<TBlob> whole_in, whole_out;
  for (const NDArray& a : in) whole_in.push_back(a.data());
  for (const NDArray& a : out) whole_out.push_back(a.data());
  // Rows the gradient lacks keep the weight: an output apart from the weight starts as a copy.
  for (size_t o = 0; o < out.size(); ++o) {
    if (req[o] == kWriteTo && whole_out[o].dptr_ != whole_in[0].dptr_) {
      std::memcpy(whole_out[o].dptr_, whole_in[0].dptr_,
                  whole_in[0].Size() * DTypeSize(whole_in[0].type_flag_));
    }
  }
  if (!grad.storage_initialized()) return;
  const dim_t n = grad.aux_shape(rowsparse::kIdx)[0];
  const int64_t* rows = grad.aux_data(rowsparse::kIdx).dptr<int64_t>();
  const size_t rs = shape.ProdShape(1, shape.ndim());
  const TShape row_shape({static_cast<dim_t>(rs)});
  auto row = [&](const TBlob& b, int64_t r) {
    return TBlob(static_cast<char*>(b.dptr_) + r * rs * DTypeSize(b.type_flag_), row_shape,
                 b.type_flag_, b.ctx);
  };
  const TBlob g = grad.data();
  std::vector<TBlob> rin(in.size()), rout(out.size());
  for (dim_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < in.size(); ++i) rin[i] = i == 1 ? row(g, k) : row(whole_in[i], rows[k]);
    for (size_t o = 0; o < out.size(); ++o) rout[o] = row(whole_out[o], rows[k]);
    // The output row may start as the weight's copy: the kernel reads the input rows only.
    fn(attrs, ctx, rin, req, rout);
  }
}

}  // namespace

void LazyUpdateCompute(const NodeAttrs& attrs, const OpContext& ctx,
                       const std::vector<NDArray>& in, const std::vector<OpReqType>& req,
                       const std::vector<NDArray>& out) {
  static const auto& mutate = nnvm::Op::GetAttr<FMutateInputs>("FMutateInputs");
  // A row_sparse weight or state is updated through a dense copy, written back after.
  std::vector<NDArray> din(in), dout(out);
  auto dense_copy = [](const NDArray& a) {
    NDArray d(a.shape(), a.ctx(), false, a.dtype());
    CastStorageSync(a, d);
    return d;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    if (i != 1 && in[i].storage_type() != kDefaultStorage) din[i] = dense_copy(in[i]);
  }
  for (size_t o = 0; o < out.size(); ++o) {
    if (out[o].storage_type() == kDefaultStorage) continue;
    dout[o] = out[o].chunk_id() == in[0].chunk_id() ? din[0] : dense_copy(out[o]);
  }
  LazyUpdateDense(attrs, ctx, din, req, dout);
  if (mutate.contains(attrs.op)) {
    for (uint32_t i : mutate[attrs.op](attrs)) {
      if (in[i].storage_type() != kDefaultStorage) CastStorageSync(din[i], in[i]);
    }
  }
  for (size_t o = 0; o < out.size(); ++o) {
    if (out[o].storage_type() != kDefaultStorage) CastStorageSync(dout[o], out[o]);
  }
}

}  // namespace update
}  // namespace op
}  // namespace mxnet
