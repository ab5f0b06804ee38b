// The "Custom" operator and its gradient "_backward_Custom": a front-end CustomOpProp gives
// names, shapes, dtypes and backward dependencies; its CustomOperator computes on a worker.
#include "operator/custom/custom_op.h"

#include <dmlc/logging.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "mxnet/engine.h"
#include "mxnet/imperative.h"
#include "operator/custom/custom_op_worker.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace custom {
namespace {

using op::NodeAttrs;
using op::NodeEntry;
using op::ObjectPtr;

// ---------------------------------------------------------------- registry and hook

std::mutex& RegistryMu() {
  static std::mutex mu;
  return mu;
}
std::unordered_map<std::string, PropCreator>& Registry() {
  static auto* creators = new std::unordered_map<std::string, PropCreator>();  // see worker
  return *creators;
}
std::atomic<CustomCallHook> g_call_hook{nullptr};

// ---------------------------------------------------------------- calls in flight

struct PendingCalls {
  std::mutex mu;
  std::condition_variable cv;
  int count{0};
};
PendingCalls& Pending() {
  static auto* p = new PendingCalls();  // never freed: tokens may die in late threads
  return *p;
}
/*! \brief Alive from the push of a call until the engine has finished or dropped it. */
struct PendingToken {
  PendingToken() {
    std::lock_guard<std::mutex> lock(Pending().mu);
    ++Pending().count;
  }
  ~PendingToken() {
    std::lock_guard<std::mutex> lock(Pending().mu);
    if (--Pending().count == 0) Pending().cv.notify_all();
  }
};
thread_local int tls_callback_depth = 0;  // > 0 while this thread runs a callback

/*! \brief State of one forward call, shared with the backward node recorded from it. */
struct CallState {
  std::mutex mu;
  std::shared_ptr<CustomOperator> op;  // created by the forward, reused by the backward
  std::vector<TShape> in_shapes;       // arguments then aux, as the forward saw them
  std::vector<int> in_types;
};

/*! \brief attrs.parsed of Custom and _backward_Custom. */
struct CustomParam {
  std::string op_type;
  uint32_t num_args{0}, num_outs{0}, num_auxs{0};
  std::vector<int> bwd_idx;  // MXNet's ids: out_grad, then in_data, then out_data
  std::vector<std::string> input_names;  // arguments then auxiliary states
  std::vector<std::string> output_names;
  std::shared_ptr<CustomOpProp> prop;
  std::shared_ptr<CallState> call;
};

const CustomParam& Param(const NodeAttrs& attrs) { return op::Param<CustomParam>(attrs); }

void ParseCustom(NodeAttrs* attrs) {
  auto it = attrs->dict.find("op_type");
  CHECK(it != attrs->dict.end() && !it->second.empty())
      << "Operator Custom: argument op_type is required (the name given to "
         "mx.operator.register)";
  CustomParam p;
  p.op_type = it->second;
  PropCreator creator;
  {
    std::lock_guard<std::mutex> lock(RegistryMu());
    auto c = Registry().find(p.op_type);
    CHECK(c != Registry().end()) << "Operator Custom: argument op_type expected a registered "
                                 << "custom operator, given '" << p.op_type
                                 << "' (register it with mx.operator.register)";
    creator = c->second;
  }
  std::vector<std::pair<std::string, std::string>> kwargs;
  for (const auto& kv : attrs->dict) {
    if (kv.first == "op_type" || kv.first.rfind("__", 0) == 0) continue;
    kwargs.emplace_back(kv.first, kv.second);
  }
  p.prop = creator(p.op_type, kwargs);
  CHECK(p.prop != nullptr) << "Custom " << p.op_type << ": the prop creator returned nothing";
  p.input_names = p.prop->ListArguments();
  std::vector<std::string> aux_names = p.prop->ListAuxiliaryStates();
  p.output_names = p.prop->ListOutputs();
  p.num_args = static_cast<uint32_t>(p.input_names.size());
  p.num_outs = static_cast<uint32_t>(p.output_names.size());
  p.num_auxs = static_cast<uint32_t>(aux_names.size());
  p.input_names.insert(p.input_names.end(), aux_names.begin(), aux_names.end());
  std::vector<int> out_grad, in_data, out_data;
  int id = 0;
  for (uint32_t i = 0; i < p.num_outs; ++i) out_grad.push_back(id++);
  for (uint32_t i = 0; i < p.num_args; ++i) in_data.push_back(id++);
  for (uint32_t i = 0; i < p.num_outs; ++i) out_data.push_back(id++);
  p.bwd_idx = p.prop->DeclareBackwardDependency(out_grad, in_data, out_data);
  for (int d : p.bwd_idx) {
    CHECK(d >= 0 && d < id) << "Custom " << p.op_type << ": declare_backward_dependency "
                            << "returned id " << d << ", expected ids in [0, " << id << ")";
  }
  p.call = std::make_shared<CallState>();
  attrs->parsed = std::move(p);
}

// ---------------------------------------------------------------- inference

bool InferShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const CustomParam& p = Param(attrs);
  std::vector<TShape> shapes(in->begin(), in->begin() + p.num_args);
  shapes.resize(p.num_args + p.num_outs + p.num_auxs);
  if (!p.prop->InferShape(&shapes)) return false;
  for (uint32_t i = 0; i < p.num_args; ++i) {
    op::AssignShape(attrs, p.input_names[i], &(*in)[i], shapes[i]);
  }
  for (uint32_t i = 0; i < p.num_outs; ++i) (*out)[i] = shapes[p.num_args + i];
  for (uint32_t i = 0; i < p.num_auxs; ++i) {
    op::AssignShape(attrs, p.input_names[p.num_args + i], &(*in)[p.num_args + i],
                    shapes[p.num_args + p.num_outs + i]);
  }
  return true;
}

bool InferType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  const CustomParam& p = Param(attrs);
  std::vector<int> types(in->begin(), in->begin() + p.num_args);
  types.resize(p.num_args + p.num_outs + p.num_auxs, -1);
  if (!p.prop->InferType(&types)) return false;
  for (uint32_t i = 0; i < p.num_args; ++i) {
    op::AssignType(attrs, p.input_names[i], &(*in)[i], types[i]);
  }
  for (uint32_t i = 0; i < p.num_outs; ++i) (*out)[i] = types[p.num_args + i];
  for (uint32_t i = 0; i < p.num_auxs; ++i) {
    op::AssignType(attrs, p.input_names[p.num_args + i], &(*in)[p.num_args + i],
                   types[p.num_args + p.num_outs + i]);
  }
  return true;
}

// The storage types of the outputs of a call with these inputs (arguments, aux states),
// by the prop's infer_storage_type. false: the prop has no rule for them.
bool ForwardStypes(const CustomParam& p, const std::vector<int>& in, std::vector<int>* out) {
  std::vector<int> st(in.begin(), in.begin() + p.num_args);
  st.resize(p.num_args + p.num_outs, kUndefinedStorage);
  st.insert(st.end(), in.begin() + p.num_args, in.end());
  if (!p.prop->InferStorageType(&st)) return false;
  out->assign(st.begin() + p.num_args, st.begin() + p.num_args + p.num_outs);
  return true;
}

// The storage types of the input gradients of a _backward_Custom call with these inputs
// (declared dependencies, then aux states), by infer_storage_type_backward.
bool BackwardStypes(const CustomParam& p, const std::vector<int>& in, std::vector<int>* out) {
  const size_t n_deps = p.bwd_idx.size();
  std::vector<int> st(2 * p.num_outs + 2 * p.num_args + p.num_auxs, kUndefinedStorage);
  for (size_t i = 0; i < n_deps; ++i) st[p.bwd_idx[i]] = in[i];
  for (uint32_t i = 0; i < p.num_auxs; ++i) st[2 * p.num_outs + 2 * p.num_args + i] = in[n_deps + i];
  if (!p.prop->InferBackwardStorageType(&st)) return false;
  const size_t igrad = 2 * p.num_outs + p.num_args;
  out->assign(st.begin() + igrad, st.begin() + igrad + p.num_args);
  return true;
}

template <bool kBackward>
bool InferStorage(const NodeAttrs& attrs, int, DispatchMode* mode, std::vector<int>* in,
                  std::vector<int>* out) {
  std::vector<int> st;
  const bool ok = kBackward ? BackwardStypes(Param(attrs), *in, &st)
                            : ForwardStypes(Param(attrs), *in, &st);
  for (size_t i = 0; i < out->size(); ++i) {
    // no rule: dense results; given storage types (bound arrays) get the result converted
    if ((*out)[i] == kUndefinedStorage) (*out)[i] = ok ? st[i] : kDefaultStorage;
  }
  *mode = ok ? DispatchMode::kFComputeEx : DispatchMode::kFComputeFallback;
  return true;
}

std::vector<int> StorageTypes(const std::vector<NDArray>& arrays) {
  std::vector<int> st;
  for (const NDArray& a : arrays) st.push_back(a.storage_type());
  return st;
}

NDArray NewOutput(int stype, const TShape& shape, const Context& ctx, int dtype) {
  if (stype == kDefaultStorage || stype == kUndefinedStorage) {
    return NDArray(shape, ctx, false, dtype);
  }
  return NDArray(static_cast<NDArrayStorageType>(stype), shape, ctx, true, dtype);
}

// ---------------------------------------------------------------- running on a worker

/*! \brief A new array over a's memory with its own engine variable (keeps a's chunk alive).
 *  A sparse array has no such view: the alias is a copy, written back after the call
 *  (WriteBack) where the call writes it. Runs inside the engine op that holds a. */
NDArray Alias(const NDArray& a) {
  if (a.is_none()) return NDArray();
  if (a.storage_type() != kDefaultStorage) {
    NDArray copy(static_cast<NDArrayStorageType>(a.storage_type()), a.shape(), a.ctx(), true,
                 a.dtype());
    CastStorageSync(a, copy);
    return copy;
  }
  return NDArray::FromExternal(a.data(), std::make_shared<NDArray>(a.Detach()));
}

void WriteBack(const std::vector<NDArray>& aliases, const std::vector<NDArray>& arrays) {
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (arrays[i].storage_type() != kDefaultStorage) CastStorageSync(aliases[i], arrays[i]);
  }
}

using CustomCall = std::function<void(const std::vector<NDArray>& reads,
                                      const std::vector<NDArray>& writes)>;

/*!
 * \brief Push call as one asynchronous engine op reading `reads` and writing `writes`.
 *  When it runs, call gets aliases of the arrays (own variables, same memory) on a custom-op
 *  worker, so the ops it pushes on them are not held up by this op. Afterwards an op that
 *  writes every alias waits for those ops, then completes this op, with call's error or the
 *  first error of those ops.
 */
void PushCustomCall(const char* engine_name, std::string call_name, Context ctx,
                    std::vector<NDArray> reads, std::vector<NDArray> writes, CustomCall call) {
  std::vector<VarHandle> read_vars, write_vars;
  for (const NDArray& a : reads) if (!a.is_none()) read_vars.push_back(a.var());
  for (const NDArray& a : writes) write_vars.push_back(a.var());
  auto token = std::make_shared<PendingToken>();
  Engine::Get()->PushAsync(
      [ctx, call_name = std::move(call_name), reads = std::move(reads), writes = std::move(writes),
       call = std::move(call), token](RunContext, CallbackOnComplete on_complete) {
        std::vector<NDArray> r_alias, w_alias;
        for (const NDArray& a : reads) r_alias.push_back(Alias(a));
        for (const NDArray& a : writes) w_alias.push_back(Alias(a));
        auto task = [ctx, call_name, call, r_alias, w_alias, writes, on_complete, token]() {
          std::shared_ptr<dmlc::Error> error;
          CustomCallHook hook = g_call_hook.load(std::memory_order_acquire);
          if (hook) hook(call_name, true);
          ++tls_callback_depth;
          try {
            call(r_alias, w_alias);
          } catch (const dmlc::Error& e) {
            error = std::make_shared<dmlc::Error>(e);
          } catch (const std::exception& e) {
            error = std::make_shared<dmlc::Error>(call_name + ": " + e.what());
          }
          --tls_callback_depth;
          if (hook) hook(call_name, false);
          std::vector<VarHandle> vars;
          for (const NDArray& a : r_alias) if (!a.is_none()) vars.push_back(a.var());
          for (const NDArray& a : w_alias) vars.push_back(a.var());
          Engine::Get()->PushSync(
              [vars, error, on_complete, r_alias, w_alias, writes, token](RunContext) {
                std::shared_ptr<dmlc::Error> err = error;
                for (VarHandle v : vars) {
                  if (err) break;
                  try {
                    Engine::Get()->Throw(v);
                  } catch (const dmlc::Error& e) {
                    err = std::make_shared<dmlc::Error>(e);
                  }
                }
                if (!err) {
                  try {
                    WriteBack(w_alias, writes);
                  } catch (const dmlc::Error& e) {
                    err = std::make_shared<dmlc::Error>(e);
                  }
                }
                on_complete(err.get());
              },
              ctx, {}, vars, FnProperty::kNoSkip, 0, "CustomOperatorWait");
        };
        // NaiveEngine runs this op in the invoking thread and waits for on_complete, so the
        // callback must run here too (MXNet does the same).
        if (std::strcmp(Engine::Get()->Type(), "NaiveEngine") == 0) {
          task();
        } else {
          PushToCustomOpWorker(std::move(task));
        }
      },
      ctx, read_vars, write_vars, FnProperty::kAsync, 0, engine_name);
}

void CheckKnown(const CustomParam& p, const char* what, bool ok) {
  CHECK(ok) << "Custom " << p.op_type << ": cannot infer the " << what << " of the outputs";
}

// Custom: infer, allocate the outputs, create the operator, push its forward.
void CustomForward(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                   std::vector<NDArray>* outputs) {
  const CustomParam& p = Param(attrs);
  const uint32_t n_in = p.num_args + p.num_auxs;
  CHECK_EQ(inputs.size(), n_in) << "Custom " << p.op_type << " expects " << n_in
                                << " input(s) (arguments and auxiliary states), given "
                                << inputs.size();
  std::vector<TShape> in_shapes(n_in), out_shapes(p.num_outs);
  std::vector<int> in_types(n_in), out_types(p.num_outs, -1);
  for (uint32_t i = 0; i < n_in; ++i) {
    in_shapes[i] = inputs[i].shape();
    in_types[i] = inputs[i].dtype();
  }
  bool ok = InferShape(attrs, &in_shapes, &out_shapes);
  for (const TShape& s : out_shapes) ok = ok && s.IsKnown();
  CheckKnown(p, "shapes", ok);
  ok = InferType(attrs, &in_types, &out_types);
  for (int t : out_types) ok = ok && t >= 0;
  CheckKnown(p, "dtypes", ok);

  Context ctx = inputs.empty() ? Context::CPU() : inputs[0].ctx();
  std::vector<int> out_stypes;
  if (!ForwardStypes(p, StorageTypes(inputs), &out_stypes)) out_stypes.assign(p.num_outs, 0);
  outputs->clear();
  for (uint32_t i = 0; i < p.num_outs; ++i) {
    outputs->push_back(NewOutput(out_stypes[i], out_shapes[i], ctx, out_types[i]));
  }
  std::shared_ptr<CustomOperator> op = p.prop->CreateOperator(ctx, in_shapes, in_types);
  CHECK(op != nullptr) << "Custom " << p.op_type << ": create_operator returned nothing";
  {
    std::lock_guard<std::mutex> lock(p.call->mu);
    p.call->op = op;
    p.call->in_shapes = in_shapes;
    p.call->in_types = in_types;
  }
  std::vector<NDArray> reads(inputs.begin(), inputs.begin() + p.num_args);
  std::vector<NDArray> writes(*outputs);
  writes.insert(writes.end(), inputs.begin() + p.num_args, inputs.end());  // aux states
  const bool is_train = Imperative::Get()->is_training();
  const uint32_t num_outs = p.num_outs;
  PushCustomCall(attrs.op->name.c_str(), p.op_type, ctx, std::move(reads), std::move(writes),
                 [op, is_train, num_outs](const std::vector<NDArray>& r,
                                          const std::vector<NDArray>& w) {
                   std::vector<NDArray> out(w.begin(), w.begin() + num_outs);
                   std::vector<NDArray> aux(w.begin() + num_outs, w.end());
                   op->Forward(is_train, std::vector<OpReqType>(num_outs, kWriteTo), r, out, aux);
                 });
}

// _backward_Custom: inputs are the declared dependencies then the aux states.
void CustomBackward(const NodeAttrs& attrs, const std::vector<NDArray>& inputs,
                    std::vector<NDArray>* outputs) {
  const CustomParam& p = Param(attrs);
  CHECK_EQ(inputs.size(), p.bwd_idx.size() + p.num_auxs)
      << "_backward_Custom " << p.op_type << ": wrong number of inputs";
  std::shared_ptr<CustomOperator> op;
  std::vector<TShape> in_shapes;
  std::vector<int> in_types;
  {
    std::lock_guard<std::mutex> lock(p.call->mu);
    op = p.call->op;
    in_shapes = p.call->in_shapes;
    in_types = p.call->in_types;
  }
  CHECK(op != nullptr) << "_backward_Custom " << p.op_type
                       << ": the forward of this node has not run";
  Context ctx = inputs.empty() ? Context::CPU() : inputs[0].ctx();
  std::vector<int> grad_stypes;
  if (!BackwardStypes(p, StorageTypes(inputs), &grad_stypes)) grad_stypes.assign(p.num_args, 0);
  outputs->clear();
  for (uint32_t i = 0; i < p.num_args; ++i) {
    outputs->push_back(NewOutput(grad_stypes[i], in_shapes[i], ctx, in_types[i]));
  }
  // Reads: out_grad, in_data, out_data slots (none where not declared); writes: in_grad, aux.
  std::vector<NDArray> reads(2 * p.num_outs + p.num_args);
  for (size_t i = 0; i < p.bwd_idx.size(); ++i) reads[p.bwd_idx[i]] = inputs[i];
  std::vector<NDArray> writes(*outputs);
  writes.insert(writes.end(), inputs.begin() + p.bwd_idx.size(), inputs.end());
  const uint32_t num_outs = p.num_outs, num_args = p.num_args;
  PushCustomCall(attrs.op->name.c_str(), "_backward_" + p.op_type, ctx, std::move(reads),
                 std::move(writes),
                 [op, num_outs, num_args](const std::vector<NDArray>& r,
                                          const std::vector<NDArray>& w) {
                   std::vector<NDArray> out_grad(r.begin(), r.begin() + num_outs);
                   std::vector<NDArray> in_data(r.begin() + num_outs,
                                                r.begin() + num_outs + num_args);
                   std::vector<NDArray> out_data(r.begin() + num_outs + num_args, r.end());
                   std::vector<NDArray> in_grad(w.begin(), w.begin() + num_args);
                   std::vector<NDArray> aux(w.begin() + num_args, w.end());
                   op->Backward(std::vector<OpReqType>(num_args, kWriteTo), out_grad, in_data,
                                out_data, in_grad, aux);
                 });
}

// ---------------------------------------------------------------- gradient

std::vector<NodeEntry> Gradient(const ObjectPtr& n, const std::vector<NodeEntry>& ograds) {
  const CustomParam& p = Param(n->attrs);
  ObjectPtr g = nnvm::Node::Create();
  g->attrs.op = nnvm::Op::Get("_backward_Custom");
  g->attrs.name = n->attrs.name + "_backward";
  g->attrs.dict = n->attrs.dict;
  g->attrs.parsed = n->attrs.parsed;
  for (int d : p.bwd_idx) {
    const uint32_t i = static_cast<uint32_t>(d);
    if (i >= p.num_outs + p.num_args) {
      g->inputs.emplace_back(n, i - p.num_outs - p.num_args, 0);
    } else if (i >= p.num_outs) {
      g->inputs.push_back(n->inputs[i - p.num_outs]);
    } else {
      g->inputs.push_back(ograds[i]);
    }
  }
  for (uint32_t i = 0; i < p.num_auxs; ++i) g->inputs.push_back(n->inputs[p.num_args + i]);
  std::vector<NodeEntry> ret;
  for (uint32_t i = 0; i < p.num_args; ++i) ret.emplace_back(g, i, 0);
  for (uint32_t i = 0; i < p.num_auxs; ++i) {
    ret.push_back(op::MakeNode("zeros_like", n->attrs.name + "_aux_zero_grad",
                               {n->inputs[p.num_args + i]}));
  }
  return ret;
}

}  // namespace

void RegisterCustomOp(const std::string& op_type, PropCreator creator) {
  CHECK(!op_type.empty()) << "mx.operator.register: reg_name must not be empty";
  std::lock_guard<std::mutex> lock(RegistryMu());
  Registry()[op_type] = std::move(creator);
}

void WaitForCustomOps() {
  if (tls_callback_depth > 0) return;
  std::unique_lock<std::mutex> lock(Pending().mu);
  Pending().cv.wait(lock, [] { return Pending().count == 0; });
}

void SetCustomCallHook(CustomCallHook hook) { g_call_hook.store(hook, std::memory_order_release); }

NNVM_REGISTER_OP(Custom)
    .describe(R"doc(Apply a custom operator implemented in Python (mx.operator).

The operator is registered with ``mx.operator.register(op_type)`` on a ``CustomOpProp``
subclass; its other keyword arguments are passed, as strings, to that class's ``__init__``.
Forward and backward run on the custom-operator worker threads (MXNET_CUSTOM_OP_NUM_THREADS).
)doc")
    .set_num_inputs([](const NodeAttrs& a) { return Param(a).num_args + Param(a).num_auxs; })
    .set_num_outputs([](const NodeAttrs& a) { return Param(a).num_outs; })
    .set_attr_parser(ParseCustom)
    .add_argument("data", "NDArray-or-Symbol[]", "Input data for the custom operator.")
    .add_argument("op_type", "string",
                  "Name of the custom operator, as passed to mx.operator.register.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) { return Param(a).input_names; })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs& a) { return Param(a).output_names; })
    .set_attr<FMutateInputs>("FMutateInputs",
                             [](const NodeAttrs& a) {
                               std::vector<uint32_t> aux;
                               for (uint32_t i = 0; i < Param(a).num_auxs; ++i) {
                                 aux.push_back(Param(a).num_args + i);
                               }
                               return aux;
                             })
    .set_attr<FInferShape>("FInferShape", InferShape)
    .set_attr<FInferType>("FInferType", InferType)
    .set_attr<FInferStorageType>("FInferStorageType", InferStorage<false>)
    .set_attr<FNDArrayFunction>("FNDArrayFunction", CustomForward)
    .set_attr<FGradient>("FGradient", Gradient);

// In a graph: each input gradient has the shape (dtype) of its input, known when backward
// reads that input (declare_backward_dependency lists it, as by default).
template <typename T>
bool BackwardLikeInputs(const NodeAttrs& attrs, std::vector<T>* in, std::vector<T>* out) {
  const CustomParam& p = Param(attrs);
  for (size_t k = 0; k < p.bwd_idx.size() && k < in->size(); ++k) {
    const uint32_t id = static_cast<uint32_t>(p.bwd_idx[k]);
    if (id >= p.num_outs && id < p.num_outs + p.num_args) (*out)[id - p.num_outs] = (*in)[k];
  }
  return false;
}

NNVM_REGISTER_OP(_backward_Custom)
    .describe("Runs the backward of a custom operator (see Custom).")
    .set_num_inputs([](const NodeAttrs& a) {
      return static_cast<uint32_t>(Param(a).bwd_idx.size()) + Param(a).num_auxs;
    })
    .set_num_outputs([](const NodeAttrs& a) { return Param(a).num_args; })
    .set_attr_parser(ParseCustom)
    .set_attr<FInferShape>("FInferShape", BackwardLikeInputs<TShape>)
    .set_attr<FInferType>("FInferType", BackwardLikeInputs<int>)
    .set_attr<FInferStorageType>("FInferStorageType", InferStorage<true>)
    .set_attr<FNDArrayFunction>("FNDArrayFunction", CustomBackward);

}  // namespace custom
}  // namespace mxnet
