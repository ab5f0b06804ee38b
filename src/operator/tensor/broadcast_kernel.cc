// BroadcastPlan: aligns and merges the dims of a broadcasting binary operation.
#include "operator/tensor/broadcast_kernel.h"

namespace mxnet {
namespace op {

BroadcastPlan::BroadcastPlan(const TShape& lhs, const TShape& rhs, const TShape& out) {
  const int nd = out.ndim();
  // Row-major strides of each input, 0 on broadcast dims, aligned to the right.
  dim_t ls[TShape::kMaxNDim], rs[TShape::kMaxNDim], os[TShape::kMaxNDim];
  dim_t lacc = 1, racc = 1;
  for (int i = nd - 1; i >= 0; --i) {
    int il = i - (nd - lhs.ndim()), ir = i - (nd - rhs.ndim());
    dim_t dl = il >= 0 ? lhs[il] : 1, dr = ir >= 0 ? rhs[ir] : 1;
    os[i] = out[i];
    ls[i] = (dl == 1 && out[i] != 1) ? 0 : lacc;
    rs[i] = (dr == 1 && out[i] != 1) ? 0 : racc;
    lacc *= dl;
    racc *= dr;
  }
  // Merge dim i into the next one when both inputs keep contiguity across them.
  ndim = 0;
  for (int i = 0; i < nd; ++i) {
    if (os[i] == 1) continue;
    if (ndim > 0) {
      int p = ndim - 1;
      bool lmerge = (lstride[p] == 0 && ls[i] == 0) || (lstride[p] != 0 && lstride[p] == ls[i] * os[i]);
      bool rmerge = (rstride[p] == 0 && rs[i] == 0) || (rstride[p] != 0 && rstride[p] == rs[i] * os[i]);
      if (lmerge && rmerge) {
        out_shape[p] *= os[i];
        lstride[p] = ls[i];
        rstride[p] = rs[i];
        continue;
      }
    }
    out_shape[ndim] = os[i];
    lstride[ndim] = ls[i];
    rstride[ndim] = rs[i];
    ++ndim;
  }
  if (ndim == 0) {
    ndim = 1;
    out_shape[0] = 1;
    lstride[0] = 1;
    rstride[0] = 1;
  }
}

}  // namespace op
}  // namespace mxnet
