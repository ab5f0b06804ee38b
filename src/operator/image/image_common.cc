// Shape rule and declaration shared by the single-image augmenters (flips, color jitter).
#include "operator/image/image_common.h"

namespace mxnet {
namespace op {
namespace image {

bool SingleImageShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const TShape& s = (*in)[0];
  if (!s.IsKnown()) return false;
  CHECK_EQ(s.ndim(), 3) << "Operator " << attrs.op->name
                        << ": input image must have shape (height, width, channels), given " << s;
  CheckGrayOrRGB(attrs, s, s[2]);
  AssignShape(attrs, "output", &(*out)[0], s);
  return true;
}

std::vector<NodeEntry> PassThroughGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  return {MakeNode("_copy", GradName(n), {og[0]}, {}, &n)};
}

nnvm::Op& RegisterAugmenter(const char* name, const char* doc, FCompute fcompute, bool random) {
  nnvm::Op& reg = nnvm::Op::Register(name);
  reg.describe(doc)
      .set_num_inputs(1)
      .set_num_outputs(1)
      .add_argument("data", "NDArray-or-Symbol", "The input.")
      .set_attr<FInferShape>("FInferShape", SingleImageShape)
      .set_attr<FInferType>("FInferType", ElemwiseType)
      .set_attr<FInplaceOption>("FInplaceOption", [](const NodeAttrs&) {
        return std::vector<std::pair<int, int>>{{0, 0}};
      })
      .set_attr<FCompute>("FCompute<cpu>", fcompute)
      .set_attr<FGradient>("FGradient", PassThroughGrad);
  if (random) {
    reg.set_attr<FResourceRequest>("FResourceRequest", [](const NodeAttrs&) {
      return std::vector<ResourceRequest>{ResourceRequest::kRandom};
    });
  }
  return reg;
}

}  // namespace image
}  // namespace op
}  // namespace mxnet
