// SequenceMask, SequenceLast and SequenceReverse over padded batches of sequences, with
// optional per-sequence lengths (truncated toward zero and clipped into [0, max length]).
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

struct SequenceParam : public dmlc::Parameter<SequenceParam> {
  bool use_sequence_length;
  float value;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceParam) {
    DMLC_DECLARE_FIELD(use_sequence_length).set_default(false).describe(
        "If set to true, this layer takes in an extra input parameter `sequence_length` to "
        "specify variable length sequence");
    DMLC_DECLARE_FIELD(value).set_default(0).describe("The value to be used as a mask.");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The sequence axis. Only values of 0 and 1 are currently supported.");
  }
};
DMLC_REGISTER_PARAMETER(SequenceParam);

// SequenceLast and SequenceReverse have no `value`; their own structs keep their argument
// lists as in MXNet.
struct SequenceLastParam : public dmlc::Parameter<SequenceLastParam> {
  bool use_sequence_length;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceLastParam) {
    DMLC_DECLARE_FIELD(use_sequence_length).set_default(false).describe(
        "If set to true, this layer takes in an extra input parameter `sequence_length` to "
        "specify variable length sequence");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The sequence axis. Only values of 0 and 1 are currently supported.");
  }
};
DMLC_REGISTER_PARAMETER(SequenceLastParam);

struct SequenceReverseParam : public dmlc::Parameter<SequenceReverseParam> {
  bool use_sequence_length;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceReverseParam) {
    DMLC_DECLARE_FIELD(use_sequence_length).set_default(false).describe(
        "If set to true, this layer takes in an extra input parameter `sequence_length` to "
        "specify variable length sequence");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The sequence axis. Only 0 is currently supported.");
  }
};
DMLC_REGISTER_PARAMETER(SequenceReverseParam);

namespace {

/*! \brief use_sequence_length and axis of whichever of the three ops attrs is. */
struct SeqArgs {
  bool use_length;
  int axis;
};

SeqArgs ArgsOf(const NodeAttrs& attrs) {
  const std::string& name = attrs.op->name;
  if (name == "SequenceMask") {
    const auto& p = Param<SequenceParam>(attrs);
    return {p.use_sequence_length, p.axis};
  }
  if (name == "SequenceReverse") {
    const auto& p = Param<SequenceReverseParam>(attrs);
    return {p.use_sequence_length, p.axis};
  }
  const auto& p = Param<SequenceLastParam>(attrs);
  return {p.use_sequence_length, p.axis};
}

/*! \brief data as (steps, batch, features) with steps on axis 0 or 1. */
struct SeqLayout {
  index_t steps, batch, features;
  int axis;
  SeqLayout(const TShape& d, int seq_axis) : axis(seq_axis) {
    steps = d[axis];
    batch = d[1 - axis];
    features = static_cast<index_t>(d.ProdShape(2, d.ndim()));
  }
  index_t Offset(index_t t, index_t b) const {
    return (axis == 0 ? t * batch + b : b * steps + t) * features;
  }
};

uint32_t SeqNumInputs(const NodeAttrs& attrs) { return ArgsOf(attrs).use_length ? 2 : 1; }

std::vector<std::string> SeqInputNames(const NodeAttrs& attrs) {
  if (ArgsOf(attrs).use_length) return {"data", "sequence_length"};
  return {"data"};
}

/*! \brief Checks data and lengths; returns false until data's shape is known. */
bool CheckSeqInputs(const NodeAttrs& attrs, std::vector<TShape>* in, int max_axis) {
  const SeqArgs a = ArgsOf(attrs);
  CHECK(a.axis >= 0 && a.axis <= max_axis)
      << "Operator " << attrs.op->name << ": argument axis must be "
      << (max_axis == 0 ? "0" : "0 or 1") << ", given " << a.axis;
  const TShape& d = (*in)[0];
  if (!d.IsKnown()) return false;
  CHECK_GE(d.ndim(), 2) << "Operator " << attrs.op->name
                        << ": data must have at least 2 axes (steps and batch), given " << d;
  if (a.use_length) AssignInputShape(attrs, 1, &(*in)[1], TShape{d[1 - a.axis]});
  return true;
}

bool SeqSameShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const int max_axis = attrs.op->name == "SequenceReverse" ? 0 : 1;
  if (!CheckSeqInputs(attrs, in, max_axis)) return false;
  AssignShape(attrs, "output", &(*out)[0], (*in)[0]);
  return true;
}

bool SeqLastShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  if (!CheckSeqInputs(attrs, in, 1)) return false;
  const TShape& d = (*in)[0];
  const int axis = ArgsOf(attrs).axis;
  TShape o(d.ndim() - 1, 0);
  for (int i = 0, j = 0; i < d.ndim(); ++i) {
    if (i != axis) o[j++] = d[i];
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

// Output dtype follows data; lengths may be of any numeric dtype.
bool SeqType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  if (in->size() > 1 && (*in)[1] < 0) (*in)[1] = (*in)[0];
  CHECK(in->size() < 2 || (*in)[1] != kBool)
      << "Operator " << attrs.op->name << ": sequence_length must be of a numeric dtype, given "
      << "bool";
  return (*out)[0] >= 0;
}

/*! \brief Each sequence's length, truncated and clipped into [0, steps]; all steps without
 *  a length input. */
std::vector<index_t> Lengths(const std::vector<TBlob>& in, bool use_length,
                             const SeqLayout& l) {
  std::vector<index_t> len(l.batch, l.steps);
  if (!use_length) return len;
  MXNET_NUMERIC_TYPE_SWITCH(in[1].type_flag_, LType, {
    const LType* src = in[1].dptr<LType>();
    for (index_t b = 0; b < l.batch; ++b) {
      const double v = static_cast<double>(src[b]);
      len[b] = !(v > 0) ? 0 : v >= static_cast<double>(l.steps) ? l.steps : index_t(v);
    }
  });
  return len;
}

/*! \brief out (req) = in at (t, b) for every step, or fill where keep(t, b) is false. */
template <typename Keep>
void CopyOrFill(const SeqLayout& l, const TBlob& in, const TBlob& out, OpReqType req,
                double fill, Keep keep) {
  if (req == kNullOp) return;
  MXNET_TYPE_SWITCH(in.type_flag_, DType, {
    const DType* x = in.dptr<DType>();
    DType* y = out.dptr<DType>();
    const DType v = ScalarAs<DType>(fill);
    ParallelFor(l.steps * l.batch, [&](index_t tb) {
      const index_t t = tb / l.batch, b = tb % l.batch, at = l.Offset(t, b);
      const bool k = keep(t, b);
      for (index_t f = 0; f < l.features; ++f) Assign(y + at + f, req, k ? x[at + f] : v);
    });
  });
}

// ------------------------------------------------------------------------- SequenceMask
void SeqMaskForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SequenceParam& p = Param<SequenceParam>(attrs);
  const SeqLayout l(in[0].shape_, p.axis);
  const std::vector<index_t> len = Lengths(in, p.use_sequence_length, l);
  CopyOrFill(l, in[0], out[0], req[0], p.value,
             [&](index_t t, index_t b) { return t < len[b]; });
}

// The mask's gradient is the output gradient masked with zeros: SequenceMask again.
std::vector<NodeEntry> SeqMaskGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const SequenceParam& p = Param<SequenceParam>(n->attrs);
  std::unordered_map<std::string, std::string> dict = n->attrs.dict;
  dict["value"] = "0";
  std::vector<NodeEntry> inputs{og[0]};
  if (p.use_sequence_length) inputs.push_back(n->inputs[1]);
  std::vector<NodeEntry> grads{MakeNode("SequenceMask", GradName(n), inputs, dict)};
  if (p.use_sequence_length) {
    grads.push_back(MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[1]}));
  }
  return grads;
}

// ---------------------------------------------------------------------- SequenceReverse
void SeqReverseForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SequenceReverseParam& p = Param<SequenceReverseParam>(attrs);
  const SeqLayout l(in[0].shape_, p.axis);
  const std::vector<index_t> len = Lengths(in, p.use_sequence_length, l);
  // In place would overwrite steps not yet read: out must not alias data (no FInplaceOption).
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    ParallelFor(l.steps * l.batch, [&](index_t tb) {
      const index_t t = tb / l.batch, b = tb % l.batch;
      const index_t src = t < len[b] ? len[b] - 1 - t : t;
      const index_t to = l.Offset(t, b), from = l.Offset(src, b);
      for (index_t f = 0; f < l.features; ++f) Assign(y + to + f, req[0], x[from + f]);
    });
  });
}

// Reversal is its own inverse: the gradient is the output gradient reversed the same way.
std::vector<NodeEntry> SeqReverseGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const SequenceReverseParam& p = Param<SequenceReverseParam>(n->attrs);
  std::vector<NodeEntry> inputs{og[0]};
  if (p.use_sequence_length) inputs.push_back(n->inputs[1]);
  std::vector<NodeEntry> grads{MakeNode("SequenceReverse", GradName(n), inputs, n->attrs.dict)};
  if (p.use_sequence_length) {
    grads.push_back(MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[1]}));
  }
  return grads;
}

// ------------------------------------------------------------------------- SequenceLast
/*! \brief Step SequenceLast reads for sequence b: its last, or step 0 for an empty one. */
inline index_t LastStep(const std::vector<index_t>& len, index_t b) {
  return len[b] > 0 ? len[b] - 1 : 0;
}

void SeqLastForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const SequenceLastParam& p = Param<SequenceLastParam>(attrs);
  const SeqLayout l(in[0].shape_, p.axis);
  const std::vector<index_t> len = Lengths(in, p.use_sequence_length, l);
  MXNET_TYPE_SWITCH(in[0].type_flag_, DType, {
    const DType* x = in[0].dptr<DType>();
    DType* y = out[0].dptr<DType>();
    for (index_t b = 0; b < l.batch; ++b) {
      const DType* row = x + l.Offset(LastStep(len, b), b);
      for (index_t f = 0; f < l.features; ++f) Assign(y + b * l.features + f, req[0], row[f]);
    }
  });
}

// Inputs (ograd, data[, sequence_length]); output the data gradient: ograd at each
// sequence's last step, zero elsewhere.
void SeqLastBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const SequenceLastParam& p = Param<SequenceLastParam>(attrs);
  const SeqLayout l(in[1].shape_, p.axis);
  std::vector<TBlob> len_in{in[1]};
  if (p.use_sequence_length) len_in.push_back(in[2]);
  const std::vector<index_t> len = Lengths(len_in, p.use_sequence_length, l);
  if (req[0] == kNullOp) return;
  MXNET_TYPE_SWITCH(out[0].type_flag_, DType, {
    const DType* g = in[0].dptr<DType>();
    DType* dx = out[0].dptr<DType>();
    ParallelFor(l.steps * l.batch, [&](index_t tb) {
      const index_t t = tb / l.batch, b = tb % l.batch, at = l.Offset(t, b);
      const bool last = t == LastStep(len, b);
      for (index_t f = 0; f < l.features; ++f) {
        Assign(dx + at + f, req[0], last ? g[b * l.features + f] : DType(0));
      }
    });
  });
}

std::vector<NodeEntry> SeqLastGrad(const ObjectPtr& n, const std::vector<NodeEntry>& og) {
  const SequenceLastParam& p = Param<SequenceLastParam>(n->attrs);
  std::vector<NodeEntry> inputs{og[0], n->inputs[0]};
  if (p.use_sequence_length) inputs.push_back(n->inputs[1]);
  std::vector<NodeEntry> grads{
      MakeNode("_backward_SequenceLast", GradName(n), inputs, n->attrs.dict)};
  if (p.use_sequence_length) {
    grads.push_back(MakeNode("zeros_like", n->attrs.name + "_zero_grad", {n->inputs[1]}));
  }
  return grads;
}

bool SeqLastBackwardShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  AssignShape(attrs, "data", &(*out)[0], (*in)[1]);
  return (*out)[0].IsKnown();
}

bool SeqLastBackwardType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "data", &(*out)[0], (*in)[0]);
  return (*out)[0] >= 0;
}

template <typename PType>
void RegisterSequenceOp(const char* name, const char* doc, FInferShape shape, FCompute fcompute,
                        FGradient grad) {
  nnvm::Op& op = nnvm::Op::Register(name);
  op.describe(doc)
      .set_num_inputs(SeqNumInputs)
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<PType>)
      .add_argument("data", "NDArray-or-Symbol",
                    "n-dimensional input array of the form [max_sequence_length, batch_size, "
                    "other_feature_dims] where n>2")
      .add_argument("sequence_length", "NDArray-or-Symbol",
                    "vector of sequence lengths of the form [batch_size]")
      .add_arguments(PType::__FIELDS__());
  op.set_attr<FListInputNames>("FListInputNames", SeqInputNames);
  op.set_attr<FInferShape>("FInferShape", shape);
  op.set_attr<FInferType>("FInferType", SeqType);
  op.set_attr<FCompute>("FCompute<cpu>", fcompute);
  op.set_attr<FGradient>("FGradient", grad);
}

const bool registered [[maybe_unused]] = [] {
  RegisterSequenceOp<SequenceParam>("SequenceMask", R"doc(Sets all elements outside the sequence
to a constant value.

data is (max_sequence_length, batch_size, ...) (axis=0) or (batch_size, max_sequence_length,
...) (axis=1). With use_sequence_length, the steps of sequence b from sequence_length[b] on
are set to ``value``; without it the data is returned unchanged.
)doc", SeqSameShape, SeqMaskForward, SeqMaskGrad);
  RegisterSequenceOp<SequenceLastParam>("SequenceLast", R"doc(Takes the last element of a sequence.

Returns, for each sequence b, its step sequence_length[b] - 1 (with use_sequence_length) or
the last step; the output drops the sequence axis. An empty sequence gives its first step.
)doc", SeqLastShape, SeqLastForward, SeqLastGrad);
  RegisterSequenceOp<SequenceReverseParam>("SequenceReverse",
                                           R"doc(Reverses the elements of each sequence.

With use_sequence_length only the first sequence_length[b] steps of sequence b are reversed
and the padding after them stays in place. The sequence axis must be 0.
)doc", SeqSameShape, SeqReverseForward, SeqReverseGrad);

  nnvm::Op& bw = nnvm::Op::Register("_backward_SequenceLast");
  bw.describe("Gradient of SequenceLast with respect to data.")
      .set_num_inputs([](const NodeAttrs& attrs) { return SeqNumInputs(attrs) + 1; })
      .set_num_outputs(1)
      .set_attr_parser(ParamParser<SequenceLastParam>)
      .add_arguments(SequenceLastParam::__FIELDS__());
  bw.set_attr<FListInputNames>("FListInputNames", [](const NodeAttrs& attrs) {
    std::vector<std::string> names{"ograd"};
    for (const std::string& s : SeqInputNames(attrs)) names.push_back(s);
    return names;
  });
  bw.set_attr<FInferShape>("FInferShape", SeqLastBackwardShape);
  bw.set_attr<FInferType>("FInferType", SeqLastBackwardType);
  bw.set_attr<FCompute>("FCompute<cpu>", SeqLastBackward);
  return true;
}();

}  // namespace

}  // namespace op
}  // namespace mxnet
