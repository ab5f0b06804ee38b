// Inference rules, the float-tuple argument and the declaration routines shared by the
// optimizer update operators.
#include "operator/optimizer/update_common.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace mxnet {
namespace op {
namespace update {

std::istream& operator>>(std::istream& is, FloatTuple& t) {
  t.v.clear();
  auto skip_space = [&is]() {
    while (is.good() && std::isspace(is.peek())) is.get();
  };
  skip_space();
  const int open = is.good() ? is.peek() : EOF;
  if (open != '(' && open != '[') {
    float x;
    if (is >> x) t.v.push_back(x);
    return is;
  }
  const char close = open == '(' ? ')' : ']';
  is.get();
  while (true) {
    skip_space();
    if (is.good() && is.peek() == close) {
      is.get();
      return is;
    }
    float x;
    if (!(is >> x)) return is;
    t.v.push_back(x);
    skip_space();
    const int c = is.get();
    if (c == close) return is;
    if (c != ',') {
      is.setstate(std::ios::failbit);
      return is;
    }
  }
}

std::ostream& operator<<(std::ostream& os, const FloatTuple& t) {
  os << '(';
  for (size_t i = 0; i < t.v.size(); ++i) os << (i ? "," : "") << t.v[i];
  if (t.v.size() == 1) os << ',';
  return os << ')';
}

void CheckRealType(const NodeAttrs& attrs, size_t i, int t) {
  CHECK(t == -1 || t == kFloat32 || t == kFloat64 || t == kFloat16)
      << "Operator " << attrs.op->name << ": argument " << InputName(attrs, i)
      << " expected float32, float64 or float16, given " << DTypeName(t);
}

void RequireInputType(const NodeAttrs& attrs, size_t i, int want, std::vector<int>* in) {
  const int t = (*in)[i];
  CHECK(t == -1 || t == want) << "Operator " << attrs.op->name << ": argument "
                              << InputName(attrs, i) << " expected " << DTypeName(want)
                              << ", given " << DTypeName(t);
  (*in)[i] = want;
}

void RequireOutputType(const NodeAttrs& attrs, int want, std::vector<int>* out) {
  for (int& t : *out) {
    CHECK(t == -1 || t == want) << "Operator " << attrs.op->name << ": output expected "
                                << DTypeName(want) << ", given " << DTypeName(t);
    t = want;
  }
}

FInferShape SharedShapeOfFirst(size_t n) {
  return [n](const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
    const size_t k = std::min(n, in->size());
    TShape s;
    for (size_t i = 0; i < k; ++i) AssignInputShape(attrs, i, &s, (*in)[i]);
    for (auto& o : *out) AssignShape(attrs, "output", &s, o);
    for (size_t i = 0; i < k; ++i) (*in)[i] = s;
    for (auto& o : *out) o = s;
    return s.IsKnown();
  };
}

bool GroupShapes(const NodeAttrs& attrs, size_t stride, std::vector<TShape>* in,
                 std::vector<TShape>* out) {
  bool known = true;
  for (size_t k = 0; k < out->size(); ++k) {
    TShape s;
    for (size_t j = 0; j < stride; ++j) {
      AssignInputShape(attrs, k * stride + j, &s, (*in)[k * stride + j]);
    }
    AssignShape(attrs, "output", &s, (*out)[k]);
    for (size_t j = 0; j < stride; ++j) (*in)[k * stride + j] = s;
    (*out)[k] = s;
    known = known && s.IsKnown();
  }
  return known;
}

FInferType SharedTypeOfFirst(size_t n) {
  return [n](const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
    const size_t k = std::min(n, in->size());
    int t = -1;
    for (size_t i = 0; i < k; ++i) AssignInputType(attrs, i, &t, (*in)[i]);
    for (auto& o : *out) AssignType(attrs, "output", &t, o);
    CheckRealType(attrs, 0, t);
    for (size_t i = 0; i < k; ++i) (*in)[i] = t;
    for (auto& o : *out) o = t;
    for (size_t i = k; i < in->size(); ++i) RequireInputType(attrs, i, kFloat32, in);
    return t != -1;
  };
}

namespace {

// What each input name of the update ops holds, for their docstrings.
std::string InputDoc(const std::string& name) {
  static const std::pair<const char*, const char*> kDocs[] = {
      {"weight", "Weight"},
      {"grad", "Gradient"},
      {"mom", "Momentum"},
      {"weight32", "Weight32: the float32 master copy of the weight"},
      {"mean", "Moving mean"},
      {"var", "Moving variance"},
      {"rescale_grad", "Rescale gradient to rescale_grad * grad (first element read); if NaN, "
                       "Inf or 0, the update is skipped"},
      {"n", "n"},
      {"g", "g"},
      {"delta", "delta"},
      {"z", "z"},
      {"d", "Internal state ``d_t``"},
      {"v", "Internal state ``v_t``"},
      {"history", "History"},
      {"r1", "r1: the norm of the weight"},
      {"r2", "r2: the norm of g"},
      {"lrs", "Learning rates"},
      {"weights_sum_sq", "Sums of squares of the weights"},
      {"grads_sum_sq", "Sums of squares of the gradients"},
      {"wds", "Weight decays"},
  };
  for (const auto& kv : kDocs) {
    if (name == kv.first) return kv.second;
  }
  return name;
}

}  // namespace

nnvm::Op& RegisterUpdateOp(const UpdateOpSpec& spec, std::function<void(NodeAttrs*)> parser,
                           const std::vector<dmlc::ParamFieldInfo>& fields) {
  nnvm::Op& op = nnvm::Op::Register(spec.name);
  op.describe(spec.doc)
      .set_num_inputs(static_cast<uint32_t>(spec.inputs.size()))
      .set_num_outputs(spec.num_outputs)
      .set_attr_parser(std::move(parser));
  for (const std::string& name : spec.inputs) {
    op.add_argument(name, "NDArray-or-Symbol", InputDoc(name));
  }
  op.add_arguments(fields)
      .set_attr<FListInputNames>("FListInputNames", InputNames(spec.inputs))
      .set_attr<FInferShape>("FInferShape", spec.shape ? spec.shape : ElemwiseShape)
      .set_attr<FInferType>("FInferType",
                            spec.type ? spec.type : SharedTypeOfFirst(spec.inputs.size()))
      .set_attr<FCompute>("FCompute<cpu>", spec.compute);
  if (!spec.mutated.empty()) {
    std::vector<uint32_t> mutated = spec.mutated;
    op.set_attr<FMutateInputs>("FMutateInputs", [mutated](const NodeAttrs&) { return mutated; });
  }
  return op;
}

MultiOpSpec MomentGroupsSpec(const char* name, const char* doc, bool mp, bool tail) {
  MultiOpSpec spec;
  spec.name = name;
  spec.doc = doc;
  spec.data_doc = "data";
  spec.group = {"weight_", "grad_", "mean_", "var_"};
  spec.mutated = {2, 3};
  if (mp) {
    spec.group.push_back("weight32_");
    spec.mutated.push_back(4);
  }
  if (tail) spec.tail = {"rescale_grad"};
  const size_t stride = spec.group.size(), extra = spec.tail.size();
  spec.type = [mp, stride, extra](const NodeAttrs& attrs, std::vector<int>* in,
                                  std::vector<int>* out) {
    const size_t n = out->size();
    int t = -1;
    for (size_t i = 0; i < n * stride; ++i) {
      if (!mp || i % stride < 2) AssignInputType(attrs, i, &t, (*in)[i]);
    }
    for (auto& o : *out) AssignType(attrs, "output", &t, o);
    CheckRealType(attrs, 0, t);
    for (size_t i = 0; i < n * stride; ++i) {
      if (mp && i % stride >= 2) RequireInputType(attrs, i, kFloat32, in); else (*in)[i] = t;
    }
    for (auto& o : *out) o = t;
    bool known = t != -1;
    for (size_t i = n * stride; i < n * stride + extra; ++i) {
      CheckRealType(attrs, i, (*in)[i]);
      known = known && (*in)[i] != -1;
    }
    return known;
  };
  return spec;
}

nnvm::Op& RegisterMultiOp(const MultiOpSpec& spec, std::function<void(NodeAttrs*)> parser,
                          const std::vector<dmlc::ParamFieldInfo>& fields) {
  const auto count = spec.count;
  const uint32_t group = static_cast<uint32_t>(spec.group.size());
  const uint32_t tail = static_cast<uint32_t>(spec.tail.size());
  nnvm::Op& op = nnvm::Op::Register(spec.name);
  op.describe(spec.doc)
      .set_num_inputs([count, group, tail](const NodeAttrs& a) { return count(a) * group + tail; })
      .set_attr_parser(std::move(parser))
      .add_argument("data", "NDArray-or-Symbol[]", spec.data_doc)
      .add_arguments(fields)
      .set_attr<FListInputNames>(
          "FListInputNames",
          [count, names = spec.group, tail_names = spec.tail](const NodeAttrs& a) {
            std::vector<std::string> ret;
            const uint32_t n = count(a);
            for (uint32_t i = 0; i < n; ++i) {
              for (const std::string& g : names) ret.push_back(g + std::to_string(i));
            }
            ret.insert(ret.end(), tail_names.begin(), tail_names.end());
            return ret;
          })
      .set_attr<FInferShape>("FInferShape", spec.shape)
      .set_attr<FInferType>("FInferType", spec.type)
      .set_attr<FCompute>("FCompute<cpu>", spec.compute);
  if (spec.num_outputs < 0) {
    op.set_num_outputs(count);
  } else {
    op.set_num_outputs(static_cast<uint32_t>(spec.num_outputs));
  }
  if (!spec.mutated.empty()) {
    op.set_attr<FMutateInputs>(
        "FMutateInputs", [count, group, mutated = spec.mutated](const NodeAttrs& a) {
          std::vector<uint32_t> ret;
          const uint32_t n = count(a);
          for (uint32_t i = 0; i < n; ++i) {
            for (uint32_t j : mutated) ret.push_back(i * group + j);
          }
          return ret;
        });
  }
  return op;
}

}  // namespace update
}  // namespace op
}  // namespace mxnet
