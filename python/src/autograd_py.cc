// mxnet._ffi: autograd state, marking variables, backward/grad and autograd.Function nodes.
#include "mxnet/imperative.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"
#include "py_common.h"
#include "imperative/autograd_info.h"

namespace mxnet {
namespace {

std::vector<NDArray*> ArrayList(const py::sequence& seq, bool allow_none) {
  std::vector<NDArray*> v;
  for (auto item : seq) {
    if (item.is_none() && allow_none) {
      v.push_back(nullptr);
      continue;
    }
    if (!py::isinstance<NDArray>(item)) {
      throw py::type_error("expected NDArray, given " + py::str(py::type::of(item)).cast<std::string>());
    }
    v.push_back(item.cast<NDArray*>());
  }
  return v;
}

/*! \brief A Python autograd.Function instance kept by the graph; released with the GIL held. */
struct PyFunctionRef {
  py::object fn;
  uint32_t num_inputs;
  uint32_t num_outputs;
  ~PyFunctionRef() {
    py::gil_scoped_acquire gil;
    fn = py::object();
  }
};
using PyFunctionPtr = std::shared_ptr<PyFunctionRef>;

const PyFunctionRef& FunctionOf(const nnvm::NodeAttrs& attrs) {
  return **std::any_cast<PyFunctionPtr>(&attrs.parsed);
}

// Backward of a custom function: calls fn.backward(*ograds) in the calling thread.
void CustomBackward(const nnvm::NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    std::vector<NDArray>* outputs) {
  const PyFunctionRef& ref = FunctionOf(attrs);
  py::gil_scoped_acquire gil;
  py::tuple args(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i].Detach());
  bool prev = Imperative::Get()->set_is_recording(false);
  py::object ret;
  try {
    ret = ref.fn.attr("backward")(*args);
  } catch (...) {
    Imperative::Get()->set_is_recording(prev);
    throw;
  }
  Imperative::Get()->set_is_recording(prev);
  std::vector<NDArray> grads;
  if (py::isinstance<NDArray>(ret)) {
    grads.push_back(ret.cast<NDArray>());
  } else {
    for (auto r : ret) grads.push_back(r.cast<NDArray>());
  }
  if (grads.size() != ref.num_inputs) {
    throw py::value_error("autograd.Function: backward returned " + std::to_string(grads.size()) +
                          " gradients, but forward took " + std::to_string(ref.num_inputs) +
                          " inputs");
  }
  outputs->clear();
  for (NDArray& g : grads) outputs->push_back(g.Detach());
}

void RegisterCustomFunctionOps() {
  static bool done = false;
  if (done) return;
  done = true;
  auto num_in = [](const nnvm::NodeAttrs& a) { return FunctionOf(a).num_inputs; };
  auto num_out = [](const nnvm::NodeAttrs& a) { return FunctionOf(a).num_outputs; };
  // Only record_function makes these nodes (with the Python function in parsed); one created
  // from a name (mx.sym._internal._CustomFunction) has no function to run.
  auto only_recorded = [](nnvm::NodeAttrs* a) {
    if (!a->parsed.has_value()) {
      throw dmlc::Error("Operator " + a->op->name + " is created by autograd.Function when "
                        "recording; it cannot be created by name");
    }
  };
  nnvm::Op::Register("_CustomFunction")
      .describe("A node recorded for a Python autograd.Function (forward already ran).")
      .set_attr_parser(only_recorded)
      .set_num_inputs(num_in)
      .set_num_outputs(num_out)
      .set_attr<FGradient>("FGradient", [](const nnvm::ObjectPtr& n,
                                           const std::vector<nnvm::NodeEntry>& ograds) {
        nnvm::ObjectPtr b = nnvm::Node::Create();
        b->attrs.op = nnvm::Op::Get("_backward_CustomFunction");
        b->attrs.name = n->attrs.name + "_backward";
        b->attrs.parsed = n->attrs.parsed;
        b->inputs = ograds;
        std::vector<nnvm::NodeEntry> ret;
        for (uint32_t i = 0; i < n->inputs.size(); ++i) ret.emplace_back(b, i, 0);
        return ret;
      });
  nnvm::Op::Register("_backward_CustomFunction")
      .describe("Runs a Python autograd.Function's backward.")
      .set_attr_parser(only_recorded)
      .set_num_inputs(num_out)
      .set_num_outputs(num_in)
      .set_attr<FNDArrayFunction>("FNDArrayFunction", CustomBackward);
}

}  // namespace

void DefineAutograd(py::module_& m) {
  RegisterCustomFunctionOps();
  m.def("set_recording", [](bool v) { return Imperative::Get()->set_is_recording(v); });
  m.def("set_training", [](bool v) { return Imperative::Get()->set_is_training(v); });
  m.def("is_recording", [] { return Imperative::Get()->is_recording(); });
  m.def("is_training", [] { return Imperative::Get()->is_training(); });
  m.def("mark_variables", [](const py::sequence& vars, const std::vector<uint32_t>& reqs,
                             const py::sequence& grads) {
    MXNET_PY_API("MXAutogradMarkVariables");
    Imperative::Get()->MarkVariables(ArrayList(vars, false), reqs, ArrayList(grads, false));
  });
  m.def("backward", [](const py::sequence& heads, const py::sequence& head_grads,
                       const py::sequence& variables, bool retain_graph, bool create_graph,
                       bool train_mode) {
    MXNET_PY_API("MXAutogradBackwardEx");
    std::vector<NDArray> ret = Imperative::Get()->Backward(
        ArrayList(heads, false), ArrayList(head_grads, true), ArrayList(variables, false),
        train_mode, retain_graph, create_graph);
    py::list out;
    for (NDArray& r : ret) out.append(py::cast(std::move(r)));
    return out;
  });
  // MXNDArrayGetGradState / SetGradState: the _fresh_grad flag of a marked variable.
  m.def("get_grad_state", [](const NDArray& a) { return Imperative::Get()->GetFreshGrad(a); });
  m.def("set_grad_state",
        [](const NDArray& a, bool fresh) { Imperative::Get()->SetFreshGrad(a, fresh); });
  m.def("detach", [](NDArray& a) { a.set_entry(nnvm::NodeEntry()); });
  /*! record_function(fn, inputs, outputs): link outputs to inputs through fn's backward. */
  m.def("record_function", [](py::object fn, const py::sequence& inputs, const py::sequence& outputs) {
    std::vector<NDArray*> ins = ArrayList(inputs, false), outs = ArrayList(outputs, false);
    auto ref = std::make_shared<PyFunctionRef>();
    ref->fn = fn;
    ref->num_inputs = static_cast<uint32_t>(ins.size());
    ref->num_outputs = static_cast<uint32_t>(outs.size());
    nnvm::NodeAttrs attrs;
    attrs.op = nnvm::Op::Get("_CustomFunction");
    attrs.name = py::str(py::type::of(fn).attr("__name__"));
    attrs.parsed = PyFunctionPtr(ref);
    Imperative::Get()->RecordExisting(attrs, ins, outs);
  });
}

}  // namespace mxnet
