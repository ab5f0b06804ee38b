// _while_loop (mx.sym.contrib.while_loop): runs its func graph while its cond graph gives a
// non-zero scalar, at most max_iterations times; _backward_while_loop runs func's gradient from
// the last step taken to the first.
//
// Graphs: cond, then func. Inputs: the loop variables and the other arrays the graphs read;
// cond reads inputs cond_input_locs, func reads func_input_locs, and loop variable k is func's
// input func_var_locs[k]. Outputs: func's num_out_data step outputs stacked on axis 0 and padded
// with zeros to max_iterations rows (MXNet leaves the padding uninitialized), the final loop
// variables, then hidden: the number of steps taken, func's saved values of every step and the
// loop variables every step read.
#include <algorithm>

#include "operator/control_flow/control_flow_common.h"

namespace mxnet {
namespace op {
namespace control_flow {

struct WhileLoopParam : public dmlc::Parameter<WhileLoopParam> {
  int num_args;
  int num_outputs;
  int num_out_data;
  int max_iterations;
  IntTuple cond_input_locs;
  IntTuple func_input_locs;
  IntTuple func_var_locs;
  DMLC_DECLARE_PARAMETER(WhileLoopParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(2).describe(
        "Number of input arguments, including cond and func as two symbol inputs.");
    DMLC_DECLARE_FIELD(num_outputs).set_lower_bound(1).describe(
        "The number of outputs of the subgraph.");
    DMLC_DECLARE_FIELD(num_out_data).set_lower_bound(0).describe(
        "The number of outputs from the function body.");
    DMLC_DECLARE_FIELD(max_iterations).set_lower_bound(1).describe("Maximum number of iterations.");
    DMLC_DECLARE_FIELD(cond_input_locs).describe(
        "The locations of cond's inputs in the given inputs.");
    DMLC_DECLARE_FIELD(func_input_locs).describe(
        "The locations of func's inputs in the given inputs.");
    DMLC_DECLARE_FIELD(func_var_locs).describe("The locations of loop_vars among func's inputs.");
  }
};
DMLC_REGISTER_PARAMETER(WhileLoopParam);

namespace {

struct Layout {
  std::shared_ptr<CachedOp> cond, func;
  size_t n_in, n_visible, n_data, n_var, n_saved;
  std::vector<size_t> var_pos;     // loop variable k -> op input
  std::vector<int> var_of_input;  // op input -> loop variable, or -1
};

Layout GetLayout(const nnvm::NodeAttrs& attrs) {
  const WhileLoopParam& p = FlowParam<WhileLoopParam>(attrs);
  SubgraphOps g = Subgraphs<WhileLoopParam>(attrs, 2);
  Layout l;
  l.cond = g[0];
  l.func = g[1];
  l.n_in = p.num_args - 2;
  l.n_visible = p.num_outputs;
  l.n_data = p.num_out_data;
  l.n_var = p.func_var_locs.ndim();
  l.n_saved = l.func->num_saved();
  const std::string op = "Operator _while_loop (" + attrs.name + "): ";
  CHECK_EQ(l.cond->num_outputs(), 1U)
      << op << "the cond graph must have one output (a scalar), given " << l.cond->num_outputs();
  CHECK_EQ(l.cond->num_inputs(), static_cast<size_t>(p.cond_input_locs.ndim()))
      << op << "argument cond_input_locs expected " << l.cond->num_inputs()
      << " locations (the cond graph's inputs), given " << p.cond_input_locs;
  CHECK_EQ(l.func->num_inputs(), static_cast<size_t>(p.func_input_locs.ndim()))
      << op << "argument func_input_locs expected " << l.func->num_inputs()
      << " locations (the func graph's inputs), given " << p.func_input_locs;
  CHECK_EQ(l.func->num_outputs(), l.n_visible)
      << op << "argument num_outputs expected " << l.func->num_outputs()
      << " (the func graph's outputs), given " << p.num_outputs;
  CHECK(l.n_data + l.n_var == l.n_visible)
      << op << "argument num_out_data expected " << l.n_visible - l.n_var
      << " (num_outputs less the loop variables), given " << p.num_out_data;
  CheckLocs(attrs, "cond_input_locs", p.cond_input_locs, l.n_in);
  CheckLocs(attrs, "func_input_locs", p.func_input_locs, l.n_in);
  CheckLocs(attrs, "func_var_locs", p.func_var_locs, p.func_input_locs.ndim());
  l.var_of_input.assign(l.n_in, -1);
  for (size_t k = 0; k < l.n_var; ++k) {
    l.var_pos.push_back(p.func_input_locs[p.func_var_locs[k]]);
    l.var_of_input[l.var_pos.back()] = static_cast<int>(k);
  }
  return l;
}

uint32_t NumOutputs(const nnvm::NodeAttrs& attrs) {
  const WhileLoopParam& p = FlowParam<WhileLoopParam>(attrs);
  if (!HasSubgraphs(attrs)) return p.num_outputs;
  Layout l = GetLayout(attrs);
  return static_cast<uint32_t>(l.n_visible + 1 + l.n_saved + l.n_var);
}

// Shapes and dtypes share one rule: func's inputs are op inputs, its step outputs gain a
// max_iterations axis, a loop variable keeps its shape and dtype from step to step.
template <typename T>
bool WhileLoopInfer(const nnvm::NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out,
                    bool (CachedOp::*infer)(std::vector<T>*, std::vector<T>*) const,
                    T (*stack)(const T&, dim_t), T (*unstack)(const T&), const T& count) {
  const WhileLoopParam& p = FlowParam<WhileLoopParam>(attrs);
  Layout l = GetLayout(attrs);
  out->resize(l.n_visible + 1 + l.n_saved + l.n_var);
  std::vector<T> func_in, func_out(l.n_visible), cond_in, cond_out(1, Unknown<T>());
  for (int64_t loc : p.func_input_locs) func_in.push_back((*in)[loc]);
  for (int64_t loc : p.cond_input_locs) cond_in.push_back((*in)[loc]);
  for (size_t j = 0; j < l.n_visible; ++j) {
    func_out[j] = j < l.n_data ? unstack((*out)[j]) : (*out)[j];
  }
  for (size_t k = 0; k < l.n_var; ++k) {
    T& v = func_in[p.func_var_locs[k]];
    if (!Known(v)) v = func_out[l.n_data + k];
  }
  (l.func.get()->*infer)(&func_in, &func_out);
  for (size_t q = 0; q < func_in.size(); ++q) {
    Assign(attrs, "input " + std::to_string(p.func_input_locs[q]), &(*in)[p.func_input_locs[q]],
           func_in[q]);
  }
  for (size_t q = 0; q < cond_in.size(); ++q) {
    if (!Known(cond_in[q])) cond_in[q] = (*in)[p.cond_input_locs[q]];
  }
  (l.cond.get()->*infer)(&cond_in, &cond_out);
  for (size_t q = 0; q < cond_in.size(); ++q) {
    Assign(attrs, "input " + std::to_string(p.cond_input_locs[q]), &(*in)[p.cond_input_locs[q]],
           cond_in[q]);
  }
  for (size_t j = 0; j < l.n_visible; ++j) {
    const T v = j < l.n_data ? stack(func_out[j], p.max_iterations) : func_out[j];
    Assign(attrs, "output " + std::to_string(j), &(*out)[j], v);
  }
  for (size_t k = 0; k < l.n_var; ++k) {
    Assign(attrs, "loop variable " + std::to_string(k) + " (func's output " +
                      std::to_string(l.n_data + k) + ")",
           &(*in)[l.var_pos[k]], (*out)[l.n_data + k]);
  }
  (*out)[l.n_visible] = count;
  for (size_t k = 0; k < l.n_saved; ++k) {
    (*out)[l.n_visible + 1 + k] = stack(func_out[l.n_visible + k], p.max_iterations);
  }
  for (size_t k = 0; k < l.n_var; ++k) {
    (*out)[l.n_visible + 1 + l.n_saved + k] = stack((*in)[l.var_pos[k]], p.max_iterations);
  }
  return std::all_of(in->begin(), in->end(), [](const T& v) { return Known(v); }) &&
         std::all_of(out->begin(), out->end(), [](const T& v) { return Known(v); });
}

TShape StackShape(const TShape& s, dim_t n) { return Stacked(n, s); }
int SameType(const int& t, dim_t) { return t; }
int SameType1(const int& t) { return t; }

bool WhileLoopShape(const nnvm::NodeAttrs& attrs, std::vector<TShape>* in,
                    std::vector<TShape>* out) {
  return WhileLoopInfer<TShape>(attrs, in, out, &CachedOp::InferShape, StackShape, DropFirst,
                                TShape({1}));
}

bool WhileLoopType(const nnvm::NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  return WhileLoopInfer<int>(attrs, in, out, &CachedOp::InferType, SameType, SameType1, kInt32);
}

void WhileLoopForward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                      const std::vector<bool>* unused, std::vector<NDArray>* outputs) {
  const WhileLoopParam& p = FlowParam<WhileLoopParam>(attrs);
  Layout l = GetLayout(attrs);
  const bool save = WantHidden(unused, l.n_visible, NumOutputs(attrs));
  PrepareOutputs(attrs, inputs, l.n_visible, save, outputs);
  std::vector<NDArray>& out = *outputs;
  std::vector<NDArray> cur = inputs;
  auto pick = [&cur](const IntTuple& locs) {
    std::vector<NDArray> v;
    for (int64_t loc : locs) v.push_back(cur[loc]);
    return v;
  };
  int32_t step = 0;
  for (; step < p.max_iterations; ++step) {
    NDArray c = RunForward(*l.cond, pick(p.cond_input_locs), false)[0];
    if (ScalarValue(attrs, "the cond graph's output", c) == 0) break;
    for (size_t k = 0; save && k < l.n_var; ++k) {
      CopyFromTo(cur[l.var_pos[k]], out[l.n_visible + 1 + l.n_saved + k].At(step));
    }
    std::vector<NDArray> res = RunForward(*l.func, pick(p.func_input_locs), save);
    for (size_t j = 0; j < l.n_data; ++j) {
      CHECK(res[j].shape() == DropFirst(out[j].shape()))
          << "Operator _while_loop (" << attrs.name << "): step output " << j << " has shape "
          << res[j].shape() << " at step " << step << ", expected " << DropFirst(out[j].shape());
      CopyFromTo(res[j], out[j].At(step));
    }
    for (size_t k = 0; save && k < l.n_saved; ++k) {
      CopyFromTo(res[l.n_visible + k], out[l.n_visible + 1 + k].At(step));
    }
    for (size_t k = 0; k < l.n_var; ++k) cur[l.var_pos[k]] = res[l.n_data + k];
  }
  for (size_t j = 0; j < l.n_data && step < p.max_iterations; ++j) {
    NDArray pad = out[j].Slice(step, p.max_iterations);
    CopyFromTo(ZerosLike(pad), pad);
  }
  for (size_t k = 0; k < l.n_var; ++k) CopyFromTo(cur[l.var_pos[k]], out[l.n_data + k]);
  if (save) out[l.n_visible].SyncCopyFromCPU(&step, 1);
}

// Inputs: the visible outputs' gradients, the forward inputs, the hidden outputs.
void WhileLoopBackward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                       const std::vector<bool>*, std::vector<NDArray>* outputs) {
  const WhileLoopParam& p = FlowParam<WhileLoopParam>(attrs);
  Layout l = GetLayout(attrs);
  const NDArray* ograd = inputs.data();
  const NDArray* fwd_in = ograd + l.n_visible;
  const NDArray* saved = fwd_in + l.n_in + 1;
  const NDArray* vars = saved + l.n_saved;
  const int steps = static_cast<int>(ScalarValue(attrs, "the step count", fwd_in[l.n_in]));
  std::vector<NDArray> grads(l.n_in);
  std::vector<NDArray> var_grad(ograd + l.n_data, ograd + l.n_visible);
  for (int step = steps - 1; step >= 0; --step) {
    std::vector<NDArray> bwd_in;
    for (size_t j = 0; j < l.n_data; ++j) bwd_in.push_back(ograd[j].At(step));
    bwd_in.insert(bwd_in.end(), var_grad.begin(), var_grad.end());
    for (int64_t loc : p.func_input_locs) {
      const int k = l.var_of_input[loc];
      bwd_in.push_back(k >= 0 ? vars[k].At(step) : fwd_in[loc]);
    }
    for (size_t k = 0; k < l.n_saved; ++k) bwd_in.push_back(saved[k].At(step));
    std::vector<NDArray> g = RunBackward(*l.func, bwd_in);
    for (size_t q = 0; q < g.size(); ++q) {
      const int64_t loc = p.func_input_locs[q];
      const int k = l.var_of_input[loc];
      if (k >= 0) {
        var_grad[k] = g[q];
      } else {
        grads[loc] = grads[loc].is_none() ? g[q] : Add(grads[loc], g[q]);
      }
    }
  }
  for (size_t k = 0; k < l.n_var; ++k) grads[l.var_pos[k]] = var_grad[k];
  for (size_t i = 0; i < l.n_in; ++i) {
    if (grads[i].is_none()) grads[i] = ZerosLike(fwd_in[i]);
  }
  *outputs = std::move(grads);
}

}  // namespace

NNVM_REGISTER_OP(_while_loop)
    .describe("Run a while loop over with user-defined condition and computation "
              "(mx.sym.contrib.while_loop builds it).")
    .set_attr_parser(FlowParser<WhileLoopParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<WhileLoopParam>(a).num_args - 2);
    })
    .set_num_outputs(NumOutputs)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const nnvm::NodeAttrs& a) {
                                    return static_cast<uint32_t>(
                                        FlowParam<WhileLoopParam>(a).num_outputs);
                                  })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const nnvm::NodeAttrs& a) {
                                  return FlowOutputNames(FlowParam<WhileLoopParam>(a).num_outputs,
                                                         NumOutputs(a));
                                })
    .set_attr<FListInputNames>("FListInputNames",
                               [](const nnvm::NodeAttrs& a) {
                                 std::vector<std::string> names;
                                 for (int i = 2; i < FlowParam<WhileLoopParam>(a).num_args; ++i) {
                                   names.push_back("data" + std::to_string(i - 2));
                                 }
                                 return names;
                               })
    .set_attr<FInputGraph>("FInputGraph",
                           [](const nnvm::NodeAttrs&) { return std::vector<uint32_t>{0, 1}; })
    .set_attr<FInferShape>("FInferShape", WhileLoopShape)
    .set_attr<FInferType>("FInferType", WhileLoopType)
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", WhileLoopForward)
    .set_attr<FGradient>("FGradient",
                         [](const nnvm::ObjectPtr& n, const std::vector<nnvm::NodeEntry>& og) {
                           return FlowGradient("_backward_while_loop",
                                               FlowParam<WhileLoopParam>(n->attrs).num_outputs, n,
                                               og);
                         })
    .set_key_var_num_args("num_args")
    .add_argument("cond", "Symbol", "Input graph for the loop condition.")
    .add_argument("func", "Symbol", "Input graph for the loop body.")
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The input arrays that include data arrays and states.")
    .add_arguments(WhileLoopParam::__FIELDS__());

NNVM_REGISTER_OP(_backward_while_loop)
    .describe("Backward of _while_loop: func's gradient, last step taken first.")
    .set_attr_parser(FlowParser<WhileLoopParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      Layout l = GetLayout(a);
      return static_cast<uint32_t>(l.n_visible + l.n_in + 1 + l.n_saved + l.n_var);
    })
    .set_num_outputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<WhileLoopParam>(a).num_args - 2);
    })
    .set_attr<FInferShape>("FInferShape",
                           [](const nnvm::NodeAttrs& a, std::vector<TShape>* in,
                              std::vector<TShape>* out) {
                             return InferLikeForwardInputs(
                                 FlowParam<WhileLoopParam>(a).num_outputs, in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const nnvm::NodeAttrs& a, std::vector<int>* in, std::vector<int>* out) {
                            return InferLikeForwardInputs(
                                FlowParam<WhileLoopParam>(a).num_outputs, in, out);
                          })
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", WhileLoopBackward);

}  // namespace control_flow
}  // namespace op
}  // namespace mxnet
