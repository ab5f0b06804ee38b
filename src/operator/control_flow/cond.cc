// _cond (mx.sym.contrib.cond): runs its then graph when its cond graph gives a non-zero
// scalar, else its else graph; _backward_cond runs the gradient of the branch taken.
//
// Graphs: cond, then_branch, else_branch; each reads the inputs its *_input_locs name.
// Outputs: the branch's outputs, then hidden: which branch ran (1 then, 0 else) and the saved
// values of the then and of the else branch (only the taken branch's are written).
#include <algorithm>

#include "operator/control_flow/control_flow_common.h"

namespace mxnet {
namespace op {
namespace control_flow {

struct CondParam : public dmlc::Parameter<CondParam> {
  int num_args;
  int num_outputs;
  IntTuple cond_input_locs;
  IntTuple then_input_locs;
  IntTuple else_input_locs;
  DMLC_DECLARE_PARAMETER(CondParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(3).describe(
        "Number of input arguments, including cond, then and else as three symbol inputs.");
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe(
        "The number of outputs of the subgraph.");
    DMLC_DECLARE_FIELD(cond_input_locs).describe(
        "The locations of cond's inputs in the given inputs.");
    DMLC_DECLARE_FIELD(then_input_locs).describe(
        "The locations of then's inputs in the given inputs.");
    DMLC_DECLARE_FIELD(else_input_locs).describe(
        "The locations of else's inputs in the given inputs.");
  }
};
DMLC_REGISTER_PARAMETER(CondParam);

namespace {

struct Layout {
  std::shared_ptr<CachedOp> cond, branch[2];  // branch[1]: then, branch[0]: else
  const IntTuple* locs[2];
  size_t n_in, n_visible, saved_begin[2], n_saved[2];
};

Layout GetLayout(const nnvm::NodeAttrs& attrs) {
  const CondParam& p = FlowParam<CondParam>(attrs);
  SubgraphOps g = Subgraphs<CondParam>(attrs, 3);
  Layout l;
  l.cond = g[0];
  l.branch[1] = g[1];
  l.branch[0] = g[2];
  l.locs[1] = &p.then_input_locs;
  l.locs[0] = &p.else_input_locs;
  l.n_in = p.num_args - 3;
  l.n_visible = p.num_outputs;
  l.n_saved[1] = g[1]->num_saved();
  l.n_saved[0] = g[2]->num_saved();
  l.saved_begin[1] = l.n_visible + 1;
  l.saved_begin[0] = l.n_visible + 1 + l.n_saved[1];
  const std::string op = "Operator _cond (" + attrs.name + "): ";
  CHECK_EQ(l.cond->num_outputs(), 1U)
      << op << "the cond graph must have one output (a scalar), given " << l.cond->num_outputs();
  const char* names[2] = {"else_input_locs", "then_input_locs"};
  for (int b = 0; b < 2; ++b) {
    CHECK_EQ(l.branch[b]->num_outputs(), l.n_visible)
        << op << "argument num_outputs expected " << l.branch[b]->num_outputs() << " (the "
        << (b ? "then" : "else") << " graph's outputs), given " << p.num_outputs;
    CHECK_EQ(l.branch[b]->num_inputs(), static_cast<size_t>(l.locs[b]->ndim()))
        << op << "argument " << names[b] << " expected " << l.branch[b]->num_inputs()
        << " locations, given " << *l.locs[b];
    CheckLocs(attrs, names[b], *l.locs[b], l.n_in);
  }
  CHECK_EQ(l.cond->num_inputs(), static_cast<size_t>(p.cond_input_locs.ndim()))
      << op << "argument cond_input_locs expected " << l.cond->num_inputs() << " locations, given "
      << p.cond_input_locs;
  CheckLocs(attrs, "cond_input_locs", p.cond_input_locs, l.n_in);
  return l;
}

uint32_t NumOutputs(const nnvm::NodeAttrs& attrs) {
  const CondParam& p = FlowParam<CondParam>(attrs);
  if (!HasSubgraphs(attrs)) return p.num_outputs;
  Layout l = GetLayout(attrs);
  return static_cast<uint32_t>(l.n_visible + 1 + l.n_saved[1] + l.n_saved[0]);
}

std::vector<NDArray> Pick(const std::vector<NDArray>& v, const IntTuple& locs) {
  std::vector<NDArray> out;
  for (int64_t loc : locs) out.push_back(v[loc]);
  return out;
}

// Both branches give the outputs (same shapes and dtypes); each graph reads its inputs.
template <typename T>
bool CondInfer(const nnvm::NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out,
               bool (CachedOp::*infer)(std::vector<T>*, std::vector<T>*) const, const T& flag) {
  const CondParam& p = FlowParam<CondParam>(attrs);
  Layout l = GetLayout(attrs);
  out->resize(l.n_visible + 1 + l.n_saved[1] + l.n_saved[0]);
  auto run = [&](const CachedOp& g, const IntTuple& locs, std::vector<T>* g_out) {
    std::vector<T> g_in;
    for (int64_t loc : locs) g_in.push_back((*in)[loc]);
    (g.*infer)(&g_in, g_out);
    for (size_t q = 0; q < g_in.size(); ++q) {
      Assign(attrs, "input " + std::to_string(locs[q]), &(*in)[locs[q]], g_in[q]);
    }
  };
  std::vector<T> cond_out(1, Unknown<T>());
  run(*l.cond, p.cond_input_locs, &cond_out);
  for (int b : {1, 0}) {
    std::vector<T> g_out(out->begin(), out->begin() + l.n_visible);
    run(*l.branch[b], *l.locs[b], &g_out);
    for (size_t j = 0; j < l.n_visible; ++j) {
      Assign(attrs, std::string("output ") + std::to_string(j) + " of the " +
                        (b ? "then" : "else") + " branch",
             &(*out)[j], g_out[j]);
    }
    for (size_t k = 0; k < l.n_saved[b]; ++k) (*out)[l.saved_begin[b] + k] = g_out[l.n_visible + k];
  }
  (*out)[l.n_visible] = flag;
  return std::all_of(in->begin(), in->end(), [](const T& v) { return Known(v); }) &&
         std::all_of(out->begin(), out->end(), [](const T& v) { return Known(v); });
}

bool CondShape(const nnvm::NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  return CondInfer<TShape>(attrs, in, out, &CachedOp::InferShape, TShape({1}));
}

bool CondType(const nnvm::NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return CondInfer<int>(attrs, in, out, &CachedOp::InferType, kInt32);
}

void CondForward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                 const std::vector<bool>* unused, std::vector<NDArray>* outputs) {
  const CondParam& p = FlowParam<CondParam>(attrs);
  Layout l = GetLayout(attrs);
  const bool save = WantHidden(unused, l.n_visible, NumOutputs(attrs));
  PrepareOutputs(attrs, inputs, l.n_visible, save, outputs);
  std::vector<NDArray>& out = *outputs;
  NDArray c = RunForward(*l.cond, Pick(inputs, p.cond_input_locs), false)[0];
  const int32_t b = ScalarValue(attrs, "the cond graph's output", c) != 0 ? 1 : 0;
  std::vector<NDArray> res = RunForward(*l.branch[b], Pick(inputs, *l.locs[b]), save);
  for (size_t j = 0; j < l.n_visible; ++j) CopyFromTo(res[j], out[j]);
  if (!save) return;
  out[l.n_visible].SyncCopyFromCPU(&b, 1);
  for (size_t k = 0; k < l.n_saved[b]; ++k) {
    CopyFromTo(res[l.n_visible + k], out[l.saved_begin[b] + k]);
  }
}

// Inputs: the visible outputs' gradients, the forward inputs, the hidden outputs.
void CondBackward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                  const std::vector<bool>*, std::vector<NDArray>* outputs) {
  Layout l = GetLayout(attrs);
  std::vector<NDArray> fwd_in(inputs.begin() + l.n_visible, inputs.begin() + l.n_visible + l.n_in);
  const NDArray* hidden = inputs.data() + l.n_visible + l.n_in;  // hidden output i at [i - n_vis]
  const int b = ScalarValue(attrs, "the branch taken", hidden[0]) != 0 ? 1 : 0;
  std::vector<NDArray> bwd_in(inputs.begin(), inputs.begin() + l.n_visible);
  for (NDArray& a : Pick(fwd_in, *l.locs[b])) bwd_in.push_back(a);
  for (size_t k = 0; k < l.n_saved[b]; ++k) {
    bwd_in.push_back(hidden[l.saved_begin[b] - l.n_visible + k]);
  }
  std::vector<NDArray> g = RunBackward(*l.branch[b], bwd_in);
  std::vector<NDArray> grads(l.n_in);
  for (size_t q = 0; q < g.size(); ++q) {
    const int64_t loc = (*l.locs[b])[q];
    grads[loc] = grads[loc].is_none() ? g[q] : Add(grads[loc], g[q]);
  }
  for (size_t i = 0; i < l.n_in; ++i) {
    if (grads[i].is_none()) grads[i] = ZerosLike(fwd_in[i]);
  }
  *outputs = std::move(grads);
}

}  // namespace

NNVM_REGISTER_OP(_cond)
    .describe("Run a if-then-else using user-defined condition and computation "
              "(mx.sym.contrib.cond builds it).")
    .set_attr_parser(FlowParser<CondParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<CondParam>(a).num_args - 3);
    })
    .set_num_outputs(NumOutputs)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const nnvm::NodeAttrs& a) {
                                    return static_cast<uint32_t>(
                                        FlowParam<CondParam>(a).num_outputs);
                                  })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const nnvm::NodeAttrs& a) {
                                  return FlowOutputNames(FlowParam<CondParam>(a).num_outputs,
                                                         NumOutputs(a));
                                })
    .set_attr<FListInputNames>("FListInputNames",
                               [](const nnvm::NodeAttrs& a) {
                                 std::vector<std::string> names;
                                 for (int i = 3; i < FlowParam<CondParam>(a).num_args; ++i) {
                                   names.push_back("data" + std::to_string(i - 3));
                                 }
                                 return names;
                               })
    .set_attr<FInputGraph>("FInputGraph",
                           [](const nnvm::NodeAttrs&) { return std::vector<uint32_t>{0, 1, 2}; })
    .set_attr<FInferShape>("FInferShape", CondShape)
    .set_attr<FInferType>("FInferType", CondType)
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", CondForward)
    .set_attr<FGradient>("FGradient",
                         [](const nnvm::ObjectPtr& n, const std::vector<nnvm::NodeEntry>& og) {
                           return FlowGradient("_backward_cond",
                                               FlowParam<CondParam>(n->attrs).num_outputs, n, og);
                         })
    .set_key_var_num_args("num_args")
    .add_argument("cond", "Symbol", "Input graph for the condition.")
    .add_argument("then_branch", "Symbol", "Input graph for the then branch.")
    .add_argument("else_branch", "Symbol", "Input graph for the else branch.")
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The input arrays that include data arrays and states.")
    .add_arguments(CondParam::__FIELDS__());

NNVM_REGISTER_OP(_backward_cond)
    .describe("Backward of _cond: the gradient of the branch taken.")
    .set_attr_parser(FlowParser<CondParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      Layout l = GetLayout(a);
      return static_cast<uint32_t>(l.n_visible + l.n_in + 1 + l.n_saved[1] + l.n_saved[0]);
    })
    .set_num_outputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<CondParam>(a).num_args - 3);
    })
    .set_attr<FInferShape>("FInferShape",
                           [](const nnvm::NodeAttrs& a, std::vector<TShape>* in,
                              std::vector<TShape>* out) {
                             return InferLikeForwardInputs(FlowParam<CondParam>(a).num_outputs, in,
                                                           out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const nnvm::NodeAttrs& a, std::vector<int>* in, std::vector<int>* out) {
                            return InferLikeForwardInputs(FlowParam<CondParam>(a).num_outputs, in,
                                                          out);
                          })
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", CondBackward);

}  // namespace control_flow
}  // namespace op
}  // namespace mxnet
