// _contrib_group_adagrad_update: AdaGrad with one history value per row of the weight (the
// mean of the row's squared gradients accumulates), as used for embeddings.
#include "operator/optimizer/update_common.h"

namespace mxnet {
namespace op {
namespace update {

struct GroupAdagradParam : public dmlc::Parameter<GroupAdagradParam> {
  float lr, rescale_grad, clip_gradient, epsilon;
  DMLC_DECLARE_PARAMETER(GroupAdagradParam) {
    MXNET_UPDATE_FIELD_LR;
    MXNET_UPDATE_FIELD_RESCALE_GRAD;
    MXNET_UPDATE_FIELD_CLIP(clip_gradient);
    DMLC_DECLARE_FIELD(epsilon).set_default(1.0e-5f).describe(
        "Epsilon for numerical stability");
  }
};
DMLC_REGISTER_PARAMETER(GroupAdagradParam);

namespace {

/*! \brief The weight as (rows, columns): rows along axis 0. */
void Rows(const TShape& w, index_t* rows, index_t* cols) {
  *rows = w.ndim() > 0 ? w[0] : 1;
  *cols = *rows > 0 ? static_cast<index_t>(w.Size()) / *rows : 0;
}

// weight and grad share a shape; history holds one value per row: (rows,) or (rows, 1).
bool GroupAdagradShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                       std::vector<TShape>* out) {
  TShape w = (*in)[0];
  if (!w.IsKnown()) w = (*in)[1];
  if (!w.IsKnown()) return false;
  CHECK_GE(w.ndim(), 1) << "Operator " << attrs.op->name
                        << ": argument weight must have at least one dimension, given shape "
                        << w;
  AssignInputShape(attrs, 0, &(*in)[0], w);
  AssignInputShape(attrs, 1, &(*in)[1], w);
  TShape& history = (*in)[2];
  if (!history.IsKnown()) history = TShape({w[0]});
  CHECK(static_cast<index_t>(history.Size()) == w[0] && history.ndim() >= 1 &&
        history[0] == w[0])
      << "Operator " << attrs.op->name << ": argument history must hold one value per row of "
      << "weight " << w << ", i.e. shape (" << w[0] << ",) or (" << w[0] << ", 1), given "
      << history;
  AssignShape(attrs, "output", &(*out)[0], w);
  return true;
}

struct GroupAdagradKernel {
  template <typename DType>
  static void Run(const GroupAdagradParam& p, const std::vector<TBlob>& in, OpReqType req,
                  const TBlob& out) {
    using R = Real<DType>;
    const R lr(p.lr), eps(p.epsilon), rescale(p.rescale_grad), clip(p.clip_gradient);
    index_t rows, cols;
    Rows(in[0].shape_, &rows, &cols);
    const DType* w = in[0].dptr<DType>();
    const DType* g = in[1].dptr<DType>();
    DType* history = in[2].dptr<DType>();
    DType* o = out.dptr<DType>();
    auto grad_at = [&](index_t i) {
      const R v = R(g[i]) * rescale;
      return clip >= 0.0f ? Clip(v, clip) : v;
    };
    LoopMaybeParallel(rows * cols >= ParallelGrain(), rows, [&](index_t r) {
      R sq(0.0f);
      for (index_t c = 0; c < cols; ++c) {
        const R v = grad_at(r * cols + c);
        sq += v * v;
      }
      const R h = R(history[r]) + sq / R(static_cast<float>(cols));
      history[r] = static_cast<DType>(h);
      const R scale = lr / Sqrt(h + eps);
      for (index_t c = 0; c < cols; ++c) {
        const index_t i = r * cols + c;
        Store(o + i, req, R(w[i]) - grad_at(i) * scale);
      }
    });
  }
};

const bool kRegistered [[maybe_unused]] = [] {
  RegisterUpdate<GroupAdagradParam>(
      {"_contrib_group_adagrad_update",
       "Update function for Group AdaGrad optimizer.\n\n"
       "Referenced from *Adaptive Subgradient Methods for Online Learning and Stochastic "
       "Optimization*, and available at http://www.jmlr.org/papers/volume12/duchi11a/"
       "duchi11a.pdf but uses only a single learning rate for every row of the parameter "
       "array.\n\nUpdates are applied by::\n\n"
       "    grad = clip(grad * rescale_grad, clip_gradient)\n"
       "    history += mean(square(grad), axis=1, keepdims=True)\n"
       "    div = grad / sqrt(history + float_stable_eps)\n"
       "    weight -= div * lr\n\n"
       "history (one value per row) is updated in place. A dense gradient updates every row "
       "(a row of zeros leaves its weight and history as they are, as the row_sparse update "
       "of MXNet does).",
       {"weight", "grad", "history"}, {2}, GroupAdagradShape, nullptr,
       UpdateCompute<GroupAdagradParam, GroupAdagradKernel>});
  return true;
}();

}  // namespace
}  // namespace update
}  // namespace op
}  // namespace mxnet
