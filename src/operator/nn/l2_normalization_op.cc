// L2Normalization: data divided by sqrt(sum of squares + eps) over each instance, each
// channel vector or each spatial map; the norms are a hidden second output.
#include <cmath>
#include <vector>

#include "operator/nn/nn_common.h"
#include "operator/nn/norm_rows.h"

namespace mxnet {
namespace op {

struct L2NormalizationParam : public dmlc::Parameter<L2NormalizationParam> {
  float eps;
  int mode;
  enum Mode { kInstance = 0, kChannel = 1, kSpatial = 2 };
  DMLC_DECLARE_PARAMETER(L2NormalizationParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-10f).describe(
        "A small constant for numerical stability.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("instance", kInstance)
        .add_enum("channel", kChannel)
        .add_enum("spatial", kSpatial)
        .set_default(kInstance)
        .describe("Specify the dimension along which to compute L2 norm.");
  }
};
DMLC_REGISTER_PARAMETER(L2NormalizationParam);

namespace {

/*! \brief The vectors normalized, as rows: instance (N, rest, 1), channel (N, C, spatial),
 *  spatial (N*C, spatial, 1). */
NormRows L2Rows(const L2NormalizationParam& p, const TShape& d) {
  NormRows l;
  const index_t n = d[0];
  const index_t rest = static_cast<index_t>(d.ProdShape(1, d.ndim()));
  if (p.mode == L2NormalizationParam::kInstance) {
    l.outer = n;
    l.len = rest;
  } else if (p.mode == L2NormalizationParam::kChannel) {
    l.outer = n;
    l.len = d[1];
    l.inner = static_cast<index_t>(d.ProdShape(2, d.ndim()));
  } else {
    l.outer = n * d[1];
    l.len = static_cast<index_t>(d.ProdShape(2, d.ndim()));
  }
  l.eps = p.eps;
  return l;
}

bool L2Shape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const L2NormalizationParam& p = Param<L2NormalizationParam>(attrs);
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), p.mode == L2NormalizationParam::kInstance ? 1 : 3)
      << "Operator " << attrs.op->name << ": mode="
      << (p.mode == L2NormalizationParam::kChannel ? "channel" : "spatial")
      << " needs data of at least 3 dimensions, given " << d;
  AssignShape(attrs, "output", &(*out)[0], d);
  TShape norm;
  if (p.mode == L2NormalizationParam::kInstance) {
    norm = TShape{d[0]};
  } else if (p.mode == L2NormalizationParam::kChannel) {
    norm = TShape(d.ndim() - 1, 0);
    norm[0] = d[0];
    for (int i = 2; i < d.ndim(); ++i) norm[i - 1] = d[i];
  } else {
    norm = TShape{d[0], d[1]};
  }
  AssignShape(attrs, "norm", &(*out)[1], norm);
  return true;
}

template <typename DType>
void L2ForwardImpl(const NormRows& l, const TBlob& data, const std::vector<OpReqType>& req,
                   const std::vector<TBlob>& out) {
  using A = typename AccType<DType>::type;
  const DType* x = data.dptr<DType>();
  DType *y = out[0].dptr<DType>(), *norm = out[1].dptr<DType>();
  LoopMaybeParallel(l.rows() * l.len >= ParallelGrain(), l.rows(), [&](index_t r) {
    const index_t base = l.RowBase(r);
    A sq = 0;
    for (index_t k = 0; k < l.len; ++k) sq += A(x[base + k * l.inner]) * A(x[base + k * l.inner]);
    const A nrm = std::sqrt(sq + A(l.eps));
    if (req[1] != kNullOp) Assign(norm + r, req[1], DType(nrm));
    if (req[0] == kNullOp) return;
    for (index_t k = 0; k < l.len; ++k) {
      const index_t at = base + k * l.inner;
      Assign(y + at, req[0], DType(A(x[at]) / nrm));
    }
  });
}

void L2Forward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NormRows l = L2Rows(Param<L2NormalizationParam>(attrs), in[0].shape_);
  MXNET_REAL_TYPE_SWITCH(in[0].type_flag_, DType, { L2ForwardImpl<DType>(l, in[0], req, out); });
}

// Inputs (ograd, data, norm); output the data gradient:
// dx = dy / n - x * sum(dy * x) / n^3 over each normalized vector.
template <typename DType>
void L2BackwardImpl(const NormRows& l, const std::vector<TBlob>& in, OpReqType req,
                    const TBlob& dx_blob) {
  using A = typename AccType<DType>::type;
  const DType *dy = in[0].dptr<DType>(), *x = in[1].dptr<DType>(), *norm = in[2].dptr<DType>();
  DType* dx = dx_blob.dptr<DType>();
  LoopMaybeParallel(l.rows() * l.len >= ParallelGrain(), l.rows(), [&](index_t r) {
    const index_t base = l.RowBase(r);
    const A n = A(norm[r]);
    A dot = 0;
    for (index_t k = 0; k < l.len; ++k) dot += A(dy[base + k * l.inner]) * A(x[base + k * l.inner]);
    const A c = dot / (n * n * n);
    for (index_t k = 0; k < l.len; ++k) {
      const index_t at = base + k * l.inner;
      Assign(dx + at, req, DType(A(dy[at]) / n - A(x[at]) * c));
    }
  });
}

void L2Backward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const NormRows l = L2Rows(Param<L2NormalizationParam>(attrs), in[1].shape_);
  MXNET_REAL_TYPE_SWITCH(in[1].type_flag_, DType, {
    L2BackwardImpl<DType>(l, in, req[0], out[0]);
  });
}

const bool registered [[maybe_unused]] = [] {
  RegisterStatLayer<L2NormalizationParam>({"L2Normalization", R"doc(Normalizes data to unit L2 norm.

``out = data / sqrt(sum(data ** 2) + eps)``, the sum over each normalized vector.
``mode`` picks the vectors normalized: ``instance`` each sample (all axes but the first),
``channel`` each vector along axis 1 (one per sample and spatial position), ``spatial`` each
sample's channel map (axes 2 and above). channel and spatial need data of 3 or more axes.
)doc", "Input array to normalize.", "norm", L2Shape, L2Forward, L2Backward});
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
