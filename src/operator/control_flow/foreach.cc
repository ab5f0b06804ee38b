// _foreach (mx.sym.contrib.foreach): runs its body graph once per slice of the data inputs
// along axis 0, threading the loop states through; _backward_foreach runs the body's gradient
// from the last step to the first.
//
// Inputs: [data (in_data_locs)] [initial states (in_state_locs)] [the rest (remain_locs)];
// each *_locs entry says where that input goes among the body's inputs (list_inputs order).
// Outputs: the body's num_out_data outputs of every step stacked on axis 0, the final states,
// then hidden: the body's saved values of every step (stacked) and the state each step read.
#include <algorithm>

#include "operator/control_flow/control_flow_common.h"

namespace mxnet {
namespace op {
namespace control_flow {

struct ForeachParam : public dmlc::Parameter<ForeachParam> {
  int num_args;
  int num_outputs;
  int num_out_data;
  IntTuple in_state_locs;
  IntTuple in_data_locs;
  IntTuple remain_locs;
  DMLC_DECLARE_PARAMETER(ForeachParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs.");
    DMLC_DECLARE_FIELD(num_outputs).describe("The number of outputs of the subgraph.");
    DMLC_DECLARE_FIELD(num_out_data).describe("The number of output data of the subgraph.");
    DMLC_DECLARE_FIELD(in_state_locs).describe("The locations of loop states among the inputs.");
    DMLC_DECLARE_FIELD(in_data_locs).describe("The locations of input data among the inputs.");
    DMLC_DECLARE_FIELD(remain_locs)
        .describe("The locations of remaining data among the inputs.");
  }
};
DMLC_REGISTER_PARAMETER(ForeachParam);

namespace {

// The body and the layout of the node, checked once per call.
struct Layout {
  std::shared_ptr<CachedOp> body;
  size_t n_data, n_state, n_in, n_visible, n_saved;
  std::vector<size_t> body_loc;  // op input i -> body input
};

Layout GetLayout(const nnvm::NodeAttrs& attrs) {
  const ForeachParam& p = FlowParam<ForeachParam>(attrs);
  Layout l;
  l.body = Subgraphs<ForeachParam>(attrs, 1)[0];
  l.n_data = p.in_data_locs.ndim();
  l.n_state = p.in_state_locs.ndim();
  l.n_in = l.n_data + l.n_state + p.remain_locs.ndim();
  l.n_visible = p.num_outputs;
  l.n_saved = l.body->num_saved();
  const std::string op = "Operator _foreach (" + attrs.name + "): ";
  CHECK_EQ(l.n_in + 1, static_cast<size_t>(p.num_args))
      << op << "argument num_args expected " << l.n_in + 1 << " (the graph, the data, the states "
      << "and the other inputs), given " << p.num_args;
  CHECK_GE(l.n_data, 1U) << op << "argument in_data_locs expected at least one data input";
  CHECK_EQ(l.body->num_inputs(), l.n_in)
      << op << "the body graph has " << l.body->num_inputs() << " inputs, the locations give "
      << l.n_in;
  CHECK_EQ(l.body->num_outputs(), l.n_visible)
      << op << "argument num_outputs expected " << l.body->num_outputs()
      << " (the body graph's outputs), given " << p.num_outputs;
  CHECK(p.num_out_data >= 0 && static_cast<size_t>(p.num_out_data) + l.n_state == l.n_visible)
      << op << "argument num_out_data expected " << l.n_visible - l.n_state
      << " (the outputs that are not states), given " << p.num_out_data;
  CheckLocs(attrs, "in_data_locs", p.in_data_locs, l.n_in);
  CheckLocs(attrs, "in_state_locs", p.in_state_locs, l.n_in);
  CheckLocs(attrs, "remain_locs", p.remain_locs, l.n_in);
  for (int64_t loc : p.in_data_locs) l.body_loc.push_back(loc);
  for (int64_t loc : p.in_state_locs) l.body_loc.push_back(loc);
  for (int64_t loc : p.remain_locs) l.body_loc.push_back(loc);
  return l;
}

uint32_t NumOutputs(const nnvm::NodeAttrs& attrs) {
  const ForeachParam& p = FlowParam<ForeachParam>(attrs);
  if (!HasSubgraphs(attrs)) return p.num_outputs;
  Layout l = GetLayout(attrs);
  return static_cast<uint32_t>(l.n_visible + l.n_saved + l.n_state);
}

// Shapes: a body input is a data row, a state or another input; outputs stack the body's.
bool ForeachShape(const nnvm::NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const ForeachParam& p = FlowParam<ForeachParam>(attrs);
  Layout l = GetLayout(attrs);
  const size_t n_out_data = p.num_out_data;
  dim_t len = (*in)[0].IsKnown() && (*in)[0].ndim() >= 1 ? (*in)[0][0] : -1;
  for (size_t j = 0; len < 0 && j < n_out_data; ++j) {
    if ((*out)[j].IsKnown() && (*out)[j].ndim() >= 1) len = (*out)[j][0];
  }
  std::vector<TShape> body_in(l.n_in), body_out(l.n_visible);
  for (size_t i = 0; i < l.n_in; ++i) {
    body_in[l.body_loc[i]] = i < l.n_data ? DataRowShape((*in)[i]) : (*in)[i];
  }
  for (size_t j = 0; j < l.n_visible; ++j) {
    body_out[j] = j < n_out_data ? DropFirst((*out)[j]) : (*out)[j];
  }
  for (size_t s = 0; s < l.n_state; ++s) {  // a state keeps its shape from step to step
    TShape& bin = body_in[l.body_loc[l.n_data + s]];
    if (!bin.IsKnown()) bin = body_out[n_out_data + s];
  }
  l.body->InferShape(&body_in, &body_out);
  for (size_t i = 0; i < l.n_in; ++i) {
    const TShape& b = body_in[l.body_loc[i]];
    if (i >= l.n_data) {
      Assign(attrs, "input " + std::to_string(i), &(*in)[i], b);
    } else if ((*in)[i].ndim() < 0) {
      (*in)[i] = Stacked(len, b);
    }
  }
  for (size_t j = 0; j < l.n_visible; ++j) {
    const TShape v = j < n_out_data ? Stacked(len, body_out[j]) : body_out[j];
    Assign(attrs, "output " + std::to_string(j), &(*out)[j], v);
  }
  for (size_t s = 0; s < l.n_state; ++s) {
    Assign(attrs, "state " + std::to_string(s) + " (the body's output " +
                      std::to_string(n_out_data + s) + ")",
           &(*in)[l.n_data + s], (*out)[n_out_data + s]);
  }
  out->resize(l.n_visible + l.n_saved + l.n_state);
  for (size_t k = 0; k < l.n_saved; ++k) {
    (*out)[l.n_visible + k] = Stacked(len, body_out[l.n_visible + k]);
  }
  for (size_t s = 0; s < l.n_state; ++s) {
    (*out)[l.n_visible + l.n_saved + s] = Stacked(len, (*in)[l.n_data + s]);
  }
  bool known = true;
  for (const TShape& s : *in) known = known && s.IsKnown();
  for (const TShape& s : *out) known = known && s.IsKnown();
  return known;
}

bool ForeachType(const nnvm::NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  Layout l = GetLayout(attrs);
  const size_t n_out_data = l.n_visible - l.n_state;
  std::vector<int> body_in(l.n_in, -1), body_out(out->begin(), out->begin() + l.n_visible);
  for (size_t i = 0; i < l.n_in; ++i) body_in[l.body_loc[i]] = (*in)[i];
  for (size_t s = 0; s < l.n_state; ++s) {
    int& bin = body_in[l.body_loc[l.n_data + s]];
    if (bin < 0) bin = body_out[n_out_data + s];
  }
  l.body->InferType(&body_in, &body_out);
  for (size_t i = 0; i < l.n_in; ++i) {
    Assign(attrs, "input " + std::to_string(i), &(*in)[i], body_in[l.body_loc[i]]);
  }
  out->resize(l.n_visible + l.n_saved + l.n_state);
  for (size_t j = 0; j < l.n_visible + l.n_saved; ++j) {
    Assign(attrs, "output " + std::to_string(j), &(*out)[j], body_out[j]);
  }
  for (size_t s = 0; s < l.n_state; ++s) (*out)[l.n_visible + l.n_saved + s] = (*in)[l.n_data + s];
  return std::all_of(in->begin(), in->end(), [](int t) { return t >= 0; }) &&
         std::all_of(out->begin(), out->end(), [](int t) { return t >= 0; });
}

void ForeachForward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    const std::vector<bool>* unused, std::vector<NDArray>* outputs) {
  Layout l = GetLayout(attrs);
  const size_t n_out_data = l.n_visible - l.n_state;
  const dim_t len = inputs[0].shape().ndim() >= 1 ? inputs[0].shape()[0] : 0;
  for (size_t j = 0; j < l.n_data; ++j) {
    CHECK(inputs[j].shape().ndim() >= 1 && inputs[j].shape()[0] == len)
        << "Operator _foreach (" << attrs.name << "): data input " << j << " expected " << len
        << " rows on axis 0 (as data input 0), given shape " << inputs[j].shape();
  }
  const bool save = WantHidden(unused, l.n_visible, NumOutputs(attrs));
  PrepareOutputs(attrs, inputs, l.n_visible, save, outputs);
  std::vector<NDArray>& out = *outputs;
  std::vector<NDArray> body_in(l.n_in);
  for (size_t i = l.n_data; i < l.n_in; ++i) body_in[l.body_loc[i]] = inputs[i];
  for (dim_t step = 0; step < len; ++step) {
    for (size_t j = 0; j < l.n_data; ++j) body_in[l.body_loc[j]] = DataRow(inputs[j], step);
    if (save) {
      for (size_t s = 0; s < l.n_state; ++s) {
        CopyFromTo(body_in[l.body_loc[l.n_data + s]], out[l.n_visible + l.n_saved + s].At(step));
      }
    }
    std::vector<NDArray> res = RunForward(*l.body, body_in, save);
    for (size_t j = 0; j < n_out_data; ++j) CopyFromTo(res[j], out[j].At(step));
    for (size_t k = 0; save && k < l.n_saved; ++k) {
      CopyFromTo(res[l.n_visible + k], out[l.n_visible + k].At(step));
    }
    for (size_t s = 0; s < l.n_state; ++s) body_in[l.body_loc[l.n_data + s]] = res[n_out_data + s];
  }
  for (size_t s = 0; s < l.n_state; ++s) {
    CopyFromTo(body_in[l.body_loc[l.n_data + s]], out[n_out_data + s]);
  }
}

// Inputs: the visible outputs' gradients, the forward inputs, the hidden outputs.
void ForeachBackward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                     const std::vector<bool>*, std::vector<NDArray>* outputs) {
  Layout l = GetLayout(attrs);
  const size_t n_out_data = l.n_visible - l.n_state;
  const NDArray* ograd = inputs.data();
  const NDArray* fwd_in = ograd + l.n_visible;
  const NDArray* saved = fwd_in + l.n_in;
  const NDArray* states = saved + l.n_saved;
  const dim_t len = fwd_in[0].shape()[0];
  std::vector<NDArray> grads(l.n_in);
  for (size_t j = 0; j < l.n_data; ++j) {
    grads[j] = NDArray(fwd_in[j].shape(), fwd_in[j].ctx(), false, fwd_in[j].dtype());
  }
  std::vector<NDArray> state_grad(ograd + n_out_data, ograd + l.n_visible);
  for (dim_t step = len - 1; step >= 0; --step) {
    std::vector<NDArray> bwd_in;
    for (size_t j = 0; j < n_out_data; ++j) bwd_in.push_back(ograd[j].At(step));
    bwd_in.insert(bwd_in.end(), state_grad.begin(), state_grad.end());
    std::vector<NDArray> body_in(l.n_in);
    for (size_t i = 0; i < l.n_in; ++i) {
      body_in[l.body_loc[i]] = i < l.n_data ? DataRow(fwd_in[i], step)
                               : i < l.n_data + l.n_state ? states[i - l.n_data].At(step)
                                                          : fwd_in[i];
    }
    bwd_in.insert(bwd_in.end(), body_in.begin(), body_in.end());
    for (size_t k = 0; k < l.n_saved; ++k) bwd_in.push_back(saved[k].At(step));
    std::vector<NDArray> g = RunBackward(*l.body, bwd_in);
    for (size_t j = 0; j < l.n_data; ++j) CopyFromTo(g[l.body_loc[j]], DataRow(grads[j], step));
    for (size_t s = 0; s < l.n_state; ++s) state_grad[s] = g[l.body_loc[l.n_data + s]];
    for (size_t i = l.n_data + l.n_state; i < l.n_in; ++i) {
      const NDArray& gi = g[l.body_loc[i]];
      grads[i] = grads[i].is_none() ? gi : Add(grads[i], gi);
    }
  }
  for (size_t s = 0; s < l.n_state; ++s) grads[l.n_data + s] = state_grad[s];
  for (size_t i = l.n_data; i < l.n_in; ++i) {
    if (grads[i].is_none()) grads[i] = ZerosLike(fwd_in[i]);
  }
  *outputs = std::move(grads);
}

}  // namespace

NNVM_REGISTER_OP(_foreach)
    .describe("Run a for loop over an NDArray with user-defined computation "
              "(mx.sym.contrib.foreach builds it).")
    .set_attr_parser(FlowParser<ForeachParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<ForeachParam>(a).num_args - 1);
    })
    .set_num_outputs(NumOutputs)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const nnvm::NodeAttrs& a) {
                                    return static_cast<uint32_t>(
                                        FlowParam<ForeachParam>(a).num_outputs);
                                  })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const nnvm::NodeAttrs& a) {
                                  return FlowOutputNames(FlowParam<ForeachParam>(a).num_outputs,
                                                         NumOutputs(a));
                                })
    .set_attr<FListInputNames>("FListInputNames",
                               [](const nnvm::NodeAttrs& a) {
                                 std::vector<std::string> names;
                                 for (int i = 0; i < FlowParam<ForeachParam>(a).num_args - 1; ++i) {
                                   names.push_back("data" + std::to_string(i));
                                 }
                                 return names;
                               })
    .set_attr<FInputGraph>("FInputGraph",
                           [](const nnvm::NodeAttrs&) { return std::vector<uint32_t>{0}; })
    .set_attr<FInferShape>("FInferShape", ForeachShape)
    .set_attr<FInferType>("FInferType", ForeachType)
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", ForeachForward)
    .set_attr<FGradient>("FGradient",
                         [](const nnvm::ObjectPtr& n, const std::vector<nnvm::NodeEntry>& og) {
                           return FlowGradient("_backward_foreach",
                                               FlowParam<ForeachParam>(n->attrs).num_outputs, n,
                                               og);
                         })
    .set_key_var_num_args("num_args")
    .add_argument("fn", "Symbol", "Input graph.")
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The input arrays that include data arrays and states.")
    .add_arguments(ForeachParam::__FIELDS__());

NNVM_REGISTER_OP(_backward_foreach)
    .describe("Backward of _foreach: the body's gradient, last step first.")
    .set_attr_parser(FlowParser<ForeachParam>)
    .set_num_inputs([](const nnvm::NodeAttrs& a) {
      Layout l = GetLayout(a);
      return static_cast<uint32_t>(l.n_visible + l.n_in + l.n_saved + l.n_state);
    })
    .set_num_outputs([](const nnvm::NodeAttrs& a) {
      return static_cast<uint32_t>(FlowParam<ForeachParam>(a).num_args - 1);
    })
    .set_attr<FInferShape>("FInferShape",
                           [](const nnvm::NodeAttrs& a, std::vector<TShape>* in,
                              std::vector<TShape>* out) {
                             return InferLikeForwardInputs(FlowParam<ForeachParam>(a).num_outputs,
                                                           in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const nnvm::NodeAttrs& a, std::vector<int>* in, std::vector<int>* out) {
                            return InferLikeForwardInputs(FlowParam<ForeachParam>(a).num_outputs,
                                                          in, out);
                          })
    .set_attr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip", ForeachBackward);

}  // namespace control_flow
}  // namespace op
}  // namespace mxnet
