// Imperative::Invoke: infer shapes and dtypes, allocate outputs, push the kernel, record it.
#include "mxnet/imperative.h"

#include <dmlc/logging.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>

#include "common/np_shape.h"
#include "engine/var_version.h"
#include "imperative/input_stamp.h"
#include "imperative/autograd_info.h"
#include "imperative/invoke_hook.h"
#include "imperative/ndarray_function.h"
#include "imperative/op_resource.h"
#include "imperative/storage_dispatch.h"
#include "operator/tensor/reshape_rule.h"

namespace mxnet {
namespace {

// Ops that touch at most this many elements (inputs and outputs together) run in the calling
// thread when their inputs are ready (FnProperty::kCPUSmall): handing them to a worker costs
// more than computing them.
constexpr size_t kSmallOpElements = 4096;

thread_local bool tls_recording = false;
thread_local bool tls_donate_inputs = false;

// One queued kernel call: what the engine runs, recycled (with the capacity of its vectors)
// so that dispatching a warm op allocates nothing here. The engine releases it after the run,
// on whichever thread that was, or without running it when an input holds an error.
struct KernelCall {
  FCompute fn;
  FComputeEx fn_ex;  // set instead of fn for a storage-aware kernel (sparse arrays)
  std::shared_ptr<const nnvm::NodeAttrs> attrs;
  OpContext opctx;
  std::vector<NDArray> inputs, outputs;
  std::vector<TBlob> in_blobs, out_blobs;
  std::vector<OpReqType> req;
  KernelCall* pool_next{nullptr};

  static void Run(RunContext rctx, void* state) {
    KernelCall* c = static_cast<KernelCall*>(state);
    c->opctx.run_ctx = rctx;
    if (c->fn_ex) {
      c->fn_ex(*c->attrs, c->opctx, c->inputs, c->req, c->outputs);
      return;
    }
    c->in_blobs.clear();
    c->out_blobs.clear();
    for (const NDArray& a : c->inputs) c->in_blobs.push_back(a.data());
    for (const NDArray& a : c->outputs) c->out_blobs.push_back(a.data());
    c->opctx.run_ctx = rctx;
    struct RunningGuard {
      const KernelCall* saved;
      explicit RunningGuard(const KernelCall* c) : saved(tls_running) { tls_running = c; }
      ~RunningGuard() { tls_running = saved; }
    } running(c);
    c->fn(*c->attrs, c->opctx, c->in_blobs, c->req, c->out_blobs);
    ReleaseTempSpaces(c->opctx.requested);
  }
  static thread_local const KernelCall* tls_running;
  static void Release(void* state) {
    KernelCall* c = static_cast<KernelCall*>(state);
    c->fn = nullptr;
    c->fn_ex = nullptr;
    c->attrs.reset();
    c->opctx.requested.clear();
    c->inputs.clear();  // frees the arrays' memory when this call held the last reference
    c->outputs.clear();
    c->in_blobs.clear();
    c->out_blobs.clear();
    Recycle(c);
  }
  static KernelCall* New();
  static void Recycle(KernelCall* c);
};

thread_local const KernelCall* KernelCall::tls_running = nullptr;

// Free KernelCalls of this thread. Lock-free (nothing to hold across fork()); a call released
// on a worker stays with that worker, and past kMax the rest go back to the heap. The flag is
// trivially destructible, so code running after this thread's destructors (engine shutdown
// at exit) still sees that the list is gone.
struct KernelCallCache {
  static constexpr int kMax = 64;
  KernelCall* head{nullptr};
  int size{0};
  ~KernelCallCache();
};
thread_local KernelCallCache tls_calls;
thread_local bool tls_calls_gone = false;

KernelCallCache::~KernelCallCache() {
  tls_calls_gone = true;
  while (head != nullptr) {
    KernelCall* next = head->pool_next;
    delete head;
    head = next;
  }
}

KernelCall* KernelCall::New() {
  if (tls_calls_gone || tls_calls.head == nullptr) return new KernelCall();
  KernelCall* c = tls_calls.head;
  tls_calls.head = c->pool_next;
  --tls_calls.size;
  c->pool_next = nullptr;
  return c;
}

void KernelCall::Recycle(KernelCall* c) {
  if (tls_calls_gone || tls_calls.size >= KernelCallCache::kMax) {
    delete c;
    return;
  }
  c->pool_next = tls_calls.head;
  tls_calls.head = c;
  ++tls_calls.size;
}

// Per-call scratch of Invoke, kept per thread so its vectors keep their capacity. An Invoke
// nested in another (a kernel run inline that invokes an op), or one after this thread's
// destructors ran, uses a fresh one.
struct InvokeScratch {
  std::vector<TShape> in_shapes, out_shapes;
  std::vector<int> in_types, out_types;
  std::vector<VarHandle> reads, writes;
};
thread_local int tls_invoke_depth = 0;  // 1 << 30 once this thread's scratch is gone
struct ThreadScratch {
  InvokeScratch scratch;
  ~ThreadScratch() { tls_invoke_depth = 1 << 30; }
};
thread_local ThreadScratch tls_scratch;
thread_local bool tls_training = false;
std::atomic<imperative::InvokeHook> g_invoke_hook{nullptr};

struct OpAttrMaps {
  const nnvm::OpMap<FCompute>& fcompute_cpu = nnvm::Op::GetAttr<FCompute>("FCompute<cpu>");
  const nnvm::OpMap<FInferShape>& infer_shape = nnvm::Op::GetAttr<FInferShape>("FInferShape");
  const nnvm::OpMap<FInferType>& infer_type = nnvm::Op::GetAttr<FInferType>("FInferType");
  const nnvm::OpMap<FResourceRequest>& resources =
      nnvm::Op::GetAttr<FResourceRequest>("FResourceRequest");
  const nnvm::OpMap<FMutateInputs>& mutate = nnvm::Op::GetAttr<FMutateInputs>("FMutateInputs");
  const nnvm::OpMap<FWriteArguments>& write_args =
      nnvm::Op::GetAttr<FWriteArguments>("FWriteArguments");
};

const OpAttrMaps& Maps() {
  static const OpAttrMaps maps;
  return maps;
}

Context ContextFromAttrs(const nnvm::NodeAttrs& attrs, const Context& fallback) {
  auto it = attrs.dict.find("ctx");
  if (it == attrs.dict.end() || it->second.empty() || it->second == "None") return fallback;
  const std::string& s = it->second;
  Context ctx;
  auto paren = s.find('(');
  std::string dev = s.substr(0, paren);
  int id = 0;
  if (paren != std::string::npos) id = std::atoi(s.c_str() + paren + 1);
  if (dev == "cpu") ctx = Context::CPU(id);
  else if (dev == "gpu") ctx = Context::GPU(id);
  else if (dev == "cpu_pinned") ctx = Context::CPUPinned(id);
  else if (dev == "cpu_shared") ctx = Context(Context::kCPUShared, id);
  else LOG(FATAL) << attrs.op->name << ": argument ctx expected cpu(i), gpu(i) or cpu_pinned(i), "
                  << "given '" << s << "'";
  return ctx;
}

// An input is tracked while its node is live; after backward released it, it is a constant.
bool AnyTracked(const std::vector<NDArray*>& inputs) {
  for (NDArray* in : inputs) {
    if (AGInfo::InGraph(*in)) return true;
  }
  return false;
}

// Writing into an array the recorded graph still refers to would silently change what backward
// computes, so MXNet refuses it, and so it refuses an op writing over one of its own inputs
// (x += y, x[i] = y) while recording. Checked before the op runs: the array keeps its value.
void CheckOutputsNotInGraph(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
                            const std::vector<NDArray>& outputs) {
  if (!tls_recording || outputs.empty() || !AnyTracked(inputs)) return;
  for (const NDArray& o : outputs) {
    CHECK(!AGInfo::InGraph(o))
        << "Operator " << attrs.op->name << ": Assigning to NDArrays that are already in a "
        << "computational graph will cause undefined behavior when evaluating gradients. "
        << "Please call backward first to clear the graph or do this out of with-record block.";
    for (const NDArray* in : inputs) {
      CHECK(in->chunk_id() != o.chunk_id() || in->byte_offset() != o.byte_offset())
          << "Operator " << attrs.op->name << ": Inplace operations (+=, -=, x[:]=, etc) are "
          << "not supported when recording with autograd.";
    }
  }
}

void RecordOp(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
              const std::vector<NDArray*>& outputs) {
  if (!AnyTracked(inputs)) return;
  nnvm::ObjectPtr node = nnvm::Node::Create();
  node->attrs = attrs;
  node->inputs.reserve(inputs.size());
  for (NDArray* in : inputs) {
    if (AGInfo::InGraph(*in)) {
      node->inputs.push_back(in->entry());
    } else {
      nnvm::ObjectPtr var = nnvm::CreateVariableNode("");
      AGInfo& vinfo = AGInfo::Create(var);
      vinfo.ctx = in->ctx();
      vinfo.outputs.push_back(in->Detach());
      node->inputs.emplace_back(var, 0, 0);
    }
  }
  AGInfo& info = AGInfo::Create(node);
  info.ctx = outputs.empty() ? Context() : outputs[0]->ctx();
  info.outputs.reserve(outputs.size());
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    info.outputs.push_back(outputs[i]->Detach());
    outputs[i]->set_entry(nnvm::NodeEntry(node, i, 0));
  }
}

// Outside numpy-shape semantics a dim of 0 in a given shape means "unknown" (MXNet's legacy
// shapes), so an operator cannot take a zero-size input there. (A zero-size output computed
// from the arguments, e.g. one_hot with depth 0, is allowed, as in MXNet 1.9.1.)
void CheckNoZeroDimInputs(const std::string& op, const std::vector<TShape>& shapes) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    for (dim_t d : shapes[i]) {
      if (d != 0) continue;
      LOG(FATAL) << "Operator " << op << ": input " << i << " has shape " << shapes[i]
                 << ", and a dim of 0 means an unknown size outside numpy-shape semantics; "
                 << "zero-size arrays need mx.set_np_shape(True) or `with mx.np_shape():`";
    }
  }
}

std::vector<NDArray*> Pointers(std::vector<NDArray>* arrays) {
  std::vector<NDArray*> p;
  p.reserve(arrays->size());
  for (NDArray& a : *arrays) p.push_back(&a);
  return p;
}

// Ops computed on NDArrays in this thread (FNDArrayFunction) skip inference and the engine.
// outputs reaches the function empty, or with one entry per output: an array the caller wants
// the result written into, or none where any array will do (Invoke's out= contract). The
// function may write into the given arrays or replace them; a replaced one is copied here.
bool InvokeNDArrayFunction(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
                           std::vector<NDArray>* outputs, const std::vector<bool>* unused) {
  static const auto& fndarray = nnvm::Op::GetAttr<FNDArrayFunction>("FNDArrayFunction");
  static const auto& fskip = nnvm::Op::GetAttr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip");
  static const auto& ftake = nnvm::Op::GetAttr<FNDArrayFunctionTake>("FNDArrayFunctionTake");
  const bool take = ftake.contains(attrs.op);
  const bool skip = fskip.contains(attrs.op);
  if (!take && !skip && !fndarray.contains(attrs.op)) return false;
  std::vector<NDArray> in_vals;
  const bool donated = take && tls_donate_inputs && !tls_recording;
  for (NDArray* in : inputs) {
    in_vals.push_back(in->Detach());
    if (donated) *in = NDArray();
  }
  std::vector<NDArray> result = *outputs;
  // Donation is for this call's inputs only: the calls the function makes keep theirs.
  imperative::DonateInputsScope nested(false);
  if (take) {
    ftake[attrs.op](attrs, &in_vals, unused, &result);
  } else if (skip) {
    fskip[attrs.op](attrs, in_vals, unused, &result);
  } else {
    fndarray[attrs.op](attrs, in_vals, &result);
  }
  if (outputs->empty()) {
    *outputs = std::move(result);
  } else {
    CHECK_EQ(outputs->size(), result.size()) << "Operator " << attrs.op->name
                                             << ": wrong number of out= arrays";
    for (size_t i = 0; i < result.size(); ++i) {
      NDArray& o = (*outputs)[i];
      if (result[i].is_none()) continue;  // a hidden output the function did not produce
      if (o.is_none()) {
        o = result[i];
      } else if (result[i].var() != o.var() || result[i].byte_offset() != o.byte_offset()) {
        CopyFromTo(result[i], o);
      }
    }
  }
  if (tls_recording) RecordOp(attrs, inputs, Pointers(outputs));
  return true;
}

}  // namespace

uint64_t imperative::InputContentStamp(const void* dptr) {
  const KernelCall* c = KernelCall::tls_running;
  if (c == nullptr || dptr == nullptr) return 0;
  for (size_t i = 0; i < c->in_blobs.size(); ++i) {
    if (c->in_blobs[i].dptr_ == dptr) return engine::VarVersion(c->inputs[i].var());
  }
  return 0;
}

void imperative::SetInvokeHook(InvokeHook hook) {
  g_invoke_hook.store(hook, std::memory_order_release);
}

Imperative* Imperative::Get() {
  static Imperative inst;
  return &inst;
}

imperative::DonateInputsScope::DonateInputsScope(bool donate) : prev_(tls_donate_inputs) {
  tls_donate_inputs = donate;
}
imperative::DonateInputsScope::~DonateInputsScope() { tls_donate_inputs = prev_; }
bool imperative::DonateInputsScope::active() { return tls_donate_inputs; }

bool Imperative::is_recording() const { return tls_recording; }
bool Imperative::set_is_recording(bool v) { bool old = tls_recording; tls_recording = v; return old; }
bool Imperative::is_training() const { return tls_training; }
bool Imperative::set_is_training(bool v) { bool old = tls_training; tls_training = v; return old; }

int Imperative::is_np_shape() const { return common::NumpyShapeState(); }
int Imperative::set_is_np_shape(int flag) { return common::SetNumpyShapeState(flag); }

void Imperative::SeedRandom(uint64_t seed, const Context* ctx) { SeedRandomStreams(seed, ctx); }

void Imperative::Invoke(const Context& default_ctx,
                        const std::shared_ptr<const nnvm::NodeAttrs>& shared_attrs,
                        const std::vector<NDArray*>& inputs, std::vector<NDArray>* outputs,
                        const std::vector<bool>* unused) {
  const nnvm::NodeAttrs& attrs = *shared_attrs;
  const nnvm::Op* op = attrs.op;
  CHECK(op != nullptr) << "Invoke: no operator given";
  const OpAttrMaps& maps = Maps();
  uint32_t n_in = op->get_num_inputs ? op->get_num_inputs(attrs) : op->num_inputs;
  uint32_t n_out = op->get_num_outputs ? op->get_num_outputs(attrs) : op->num_outputs;
  CHECK_EQ(inputs.size(), n_in) << "Operator " << op->name << " expects " << n_in
                                << " input(s), given " << inputs.size();
  CHECK(outputs->empty() || outputs->size() == n_out)
      << "Operator " << op->name << " has " << n_out << " output(s), given " << outputs->size()
      << " out= arrays";

  // Context: the first input's, else ctx kwarg, else the default. As in MXNet, inputs need
  // only the same kind of device (cpu, cpu_pinned and cpu_shared mix), and pinned or shared
  // memory does not propagate: such an op runs on, and writes, plain cpu(dev_id).
  Context ctx = inputs.empty() ? ContextFromAttrs(attrs, default_ctx) : Context();
  for (size_t i = 0; i < inputs.size(); ++i) {
    CHECK(!inputs[i]->is_none()) << "Operator " << op->name << ": input " << i << " is empty";
    if (i == 0) ctx = inputs[0]->ctx();
    CHECK(inputs[i]->ctx().dev_mask() == ctx.dev_mask())
        << "Operator " << op->name << ": all inputs must be on the same kind of device, input 0 "
        << "is on " << ctx << " and input " << i << " on " << inputs[i]->ctx();
  }
  if (!inputs.empty() && ctx.dev_type != ctx.dev_mask()) ctx = Context(ctx.dev_mask(), ctx.dev_id);
  CheckOutputsNotInGraph(attrs, inputs, *outputs);
  if (InvokeNDArrayFunction(attrs, inputs, outputs, unused)) return;
  if (ctx.dev_mask() == Context::kGPU) {
    LOG(FATAL) << "Operator " << op->name << ": " << ctx
               << " is not available (this build has no CUDA support)";
  }

  DispatchMode mode = DispatchMode::kFCompute;
  std::vector<int> out_stypes;
  if (imperative::NeedsStorageDispatch(op, inputs, *outputs)) {
    mode = imperative::InferDispatchMode(attrs, ctx, inputs, *outputs, &out_stypes);
    if (mode == DispatchMode::kFComputeFallback) {
      imperative::InvokeFallback(default_ctx, shared_attrs, inputs, outputs, unused);
      return;
    }
  }

  InvokeScratch nested;
  InvokeScratch& scratch = tls_invoke_depth == 0 ? tls_scratch.scratch : nested;
  ++tls_invoke_depth;
  struct DepthGuard {
    ~DepthGuard() { --tls_invoke_depth; }
  } depth_guard;

  // Shapes and dtypes.
  std::vector<TShape>& in_shapes = scratch.in_shapes;
  std::vector<TShape>& out_shapes = scratch.out_shapes;
  std::vector<int>& in_types = scratch.in_types;
  std::vector<int>& out_types = scratch.out_types;
  in_shapes.resize(n_in);
  in_types.resize(n_in);
  out_shapes.assign(n_out, TShape());
  out_types.assign(n_out, -1);
  for (uint32_t i = 0; i < n_in; ++i) {
    in_shapes[i] = inputs[i]->shape();
    in_types[i] = inputs[i]->dtype();
  }
  for (uint32_t i = 0; i < outputs->size(); ++i) {
    if ((*outputs)[i].is_none()) continue;
    out_shapes[i] = (*outputs)[i].shape();
    out_types[i] = (*outputs)[i].dtype();
  }
  CHECK(maps.infer_shape.contains(op)) << "Operator " << op->name << " has no shape inference";
  CHECK(maps.infer_type.contains(op)) << "Operator " << op->name << " has no type inference";
  if (!is_np_shape()) CheckNoZeroDimInputs(op->name, in_shapes);
  bool shapes_ok = maps.infer_shape[op](attrs, &in_shapes, &out_shapes);
  for (auto& s : out_shapes) shapes_ok = shapes_ok && s.IsKnown();
  CHECK(shapes_ok) << "Operator " << op->name << ": cannot infer the output shape from inputs";
  bool types_ok = maps.infer_type[op](attrs, &in_types, &out_types);
  for (int t : out_types) types_ok = types_ok && t >= 0;
  CHECK(types_ok) << "Operator " << op->name << ": cannot infer the output dtype from inputs";

  if (outputs->empty()) {
    outputs->reserve(n_out);
    // Delayed: the kernel's data() takes the memory when the op runs.
    for (uint32_t i = 0; i < n_out; ++i) {
      if (mode == DispatchMode::kFComputeEx && out_stypes[i] != kDefaultStorage) {
        outputs->emplace_back(static_cast<NDArrayStorageType>(out_stypes[i]), out_shapes[i], ctx,
                              true, out_types[i]);
      } else {
        outputs->emplace_back(out_shapes[i], ctx, true, out_types[i]);
      }
    }
  } else {
    for (uint32_t i = 0; i < n_out; ++i) {
      NDArray& o = (*outputs)[i];
      if (o.is_none()) {  // the caller gave arrays for the other outputs only
        o = mode == DispatchMode::kFComputeEx && out_stypes[i] != kDefaultStorage
                ? NDArray(static_cast<NDArrayStorageType>(out_stypes[i]), out_shapes[i], ctx,
                          true, out_types[i])
                : NDArray(out_shapes[i], ctx, true, out_types[i]);
        continue;
      }
      CHECK_EQ(o.shape(), out_shapes[i]) << "Operator " << op->name << ": out= array " << i
                                         << " has shape " << o.shape() << ", expected "
                                         << out_shapes[i];
      CHECK_EQ(o.dtype(), out_types[i]) << "Operator " << op->name << ": out= array " << i
                                        << " has dtype " << DTypeName(o.dtype()) << ", expected "
                                        << DTypeName(out_types[i]);
      CHECK(o.ctx().dev_mask() == ctx.dev_mask())
          << "Operator " << op->name << ": out= array " << i << " is on " << o.ctx()
          << ", inputs on " << ctx;
    }
  }

  static const auto& fcompute_ex = nnvm::Op::GetAttr<FComputeEx>("FComputeEx<cpu>");
  CHECK(mode == DispatchMode::kFComputeEx || maps.fcompute_cpu.contains(op))
      << "Operator " << op->name << " has no CPU kernel";
  size_t elements = 0;
  for (const TShape& sh : in_shapes) elements += sh.Size();
  for (const TShape& sh : out_shapes) elements += sh.Size();
  const FnProperty prop = elements <= kSmallOpElements ? FnProperty::kCPUSmall : FnProperty::kNormal;

  std::vector<VarHandle>& reads = scratch.reads;
  std::vector<VarHandle>& writes = scratch.writes;
  reads.clear();
  writes.clear();
  for (NDArray* in : inputs) reads.push_back(in->var());
  for (const NDArray& o : *outputs) writes.push_back(o.var());
  if (maps.mutate.contains(op)) {
    for (uint32_t idx : maps.mutate[op](attrs)) writes.push_back(inputs.at(idx)->var());
  }
  if (maps.write_args.contains(op)) {
    for (uint32_t idx : maps.write_args[op](attrs)) writes.push_back(inputs.at(idx)->var());
  }
  OpContext opctx;
  if (maps.resources.contains(op)) {
    for (const ResourceRequest& req : maps.resources[op](attrs)) {
      Resource r = RequestResource(ctx, req);
      if (req.type == ResourceRequest::kRandom || req.type == ResourceRequest::kParallelRandom) {
        NextRandomStream(ctx, &opctx.random_seed, &opctx.random_stream);
      }
      if (r.var != nullptr && std::find(writes.begin(), writes.end(), r.var) == writes.end()) {
        writes.push_back(r.var);
      }
      opctx.requested.push_back(r);
    }
  }

  std::shared_ptr<const engine::OprDetail> detail;
  if (imperative::InvokeHook hook = g_invoke_hook.load(std::memory_order_relaxed)) {
    detail = hook(shared_attrs, inputs);
  }
  KernelCall* call = KernelCall::New();
  // By value: registering an attribute at run time may reallocate the map's storage.
  if (mode == DispatchMode::kFComputeEx) {
    call->fn_ex = fcompute_ex[op];
  } else {
    call->fn = maps.fcompute_cpu[op];
  }
  call->attrs = shared_attrs;
  call->opctx.is_train = tls_training;
  call->opctx.need_grad = tls_recording;
  call->opctx.op_name = op->name.c_str();
  call->opctx.random_seed = opctx.random_seed;
  call->opctx.random_stream = opctx.random_stream;
  call->opctx.requested.swap(opctx.requested);
  for (NDArray* in : inputs) call->inputs.push_back(in->Detach());
  for (const NDArray& o : *outputs) call->outputs.push_back(o.Detach());
  call->req.assign(outputs->size(), kWriteTo);
  if (unused != nullptr) {
    for (size_t i = 0; i < unused->size() && i < call->req.size(); ++i) {
      if ((*unused)[i]) call->req[i] = kNullOp;
    }
  }
  if (detail) engine::SetNextOprDetail(std::move(detail));
  Engine::Get()->PushRawSync({&KernelCall::Run, &KernelCall::Release, call}, ctx, reads.data(),
                             reads.size(), writes.data(), writes.size(), prop, 0,
                             op->name.c_str());

  if (tls_recording) RecordOp(attrs, inputs, Pointers(outputs));
}

NDArray Imperative::ReshapeWithRecord(const NDArray& src, const std::vector<int64_t>& spec,
                                      bool reverse) {
  CHECK(!src.is_none()) << "reshape: the array is empty (none)";
  TShape target = op::InferReshapeShape(spec, src.shape(), reverse);
  // As MXNet 1.9.1: a target larger than the array is an MXNetError, a smaller one the
  // ValueError its Python front raises after the view was made.
  CHECK_LE(target.Size(), src.shape().Size())
      << "Operator Reshape: cannot reshape array of shape " << src.shape() << " into shape "
      << target << " (given shape=" << op::ReshapeSpecText(spec) << "): the target is larger";
  if (target.Size() != src.shape().Size()) {
    throw std::invalid_argument("Operator Reshape: cannot reshape array of size " +
                                std::to_string(src.shape().Size()) + " into shape " +
                                op::ReshapeSpecText(spec));
  }
  NDArray view = src.Reshape(target);
  view.set_entry(nnvm::NodeEntry());
  if (tls_recording && src.entry().node != nullptr) {
    static const nnvm::Op* reshape = nnvm::Op::GetOrThrow("Reshape");
    auto attrs = ParseAttrs(reshape, {{"shape", op::ReshapeSpecText(spec)},
                                      {"reverse", reverse ? "True" : "False"}});
    NDArray in = src;
    RecordOp(*attrs, {&in}, {&view});
  }
  return view;
}

uint32_t Imperative::NumVisibleOutputs(const nnvm::NodeAttrs& attrs) {
  static const auto& visible = nnvm::Op::GetAttr<FNumVisibleOutputs>("FNumVisibleOutputs");
  if (visible.contains(attrs.op)) return visible[attrs.op](attrs);
  return attrs.op->get_num_outputs ? attrs.op->get_num_outputs(attrs) : attrs.op->num_outputs;
}

std::vector<NDArray> Imperative::InvokeOp(const Context& default_ctx,
                                          const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
                                          const std::vector<NDArray*>& inputs,
                                          const std::vector<NDArray*>& out) {
  const nnvm::Op* op = attrs->op;
  uint32_t n_out = op->get_num_outputs ? op->get_num_outputs(*attrs) : op->num_outputs;
  uint32_t n_visible = NumVisibleOutputs(*attrs);
  std::vector<NDArray> outs;
  if (out.empty()) {
    Invoke(default_ctx, attrs, inputs, &outs);
    outs.resize(n_visible);
    return outs;
  }
  CHECK(out.size() == n_out || out.size() == n_visible)
      << "Operator " << op->name << " has " << n_out << " output(s) (" << n_visible
      << " visible), given " << out.size() << " output arrays";
  bool any_none = false;
  for (NDArray* o : out) {
    CHECK(o != nullptr) << "Operator " << op->name << ": an out= array is null";
    any_none = any_none || o->is_none();
  }
  if (!any_none && out.size() == n_out) {
    for (NDArray* o : out) outs.push_back(*o);
    Invoke(default_ctx, attrs, inputs, &outs);
    for (size_t i = 0; i < out.size(); ++i) out[i]->set_entry(outs[i].entry());
  } else {
    // Hidden outputs or none arrays: compute into new arrays, then hand the results over.
    Invoke(default_ctx, attrs, inputs, &outs);
    for (size_t i = 0; i < out.size(); ++i) {
      if (out[i]->is_none()) {
        *out[i] = outs[i];
      } else {
        CopyFromTo(outs[i], *out[i]);
        out[i]->set_entry(outs[i].entry());
      }
    }
  }
  std::vector<NDArray> result;
  result.reserve(out.size());
  for (NDArray* o : out) result.push_back(*o);
  return result;
}

void Imperative::RecordExisting(const nnvm::NodeAttrs& attrs, const std::vector<NDArray*>& inputs,
                                const std::vector<NDArray*>& outputs) {
  if (tls_recording) RecordOp(attrs, inputs, outputs);
}

}  // namespace mxnet

namespace mxnet {

std::shared_ptr<const nnvm::NodeAttrs> Imperative::ParseAttrs(
    const nnvm::Op* op, std::unordered_map<std::string, std::string> kwargs, int num_inputs) {
  if (num_inputs >= 0 && !op->key_var_num_args.empty()) {
    kwargs.emplace(op->key_var_num_args, std::to_string(num_inputs));
  }
  auto attrs = std::make_shared<nnvm::NodeAttrs>();
  attrs->op = op;
  attrs->dict = std::move(kwargs);
  // An op without arguments ignores keyword arguments, as in MXNet 1.9 (scripts and its own
  // tests pass e.g. axis= to broadcast_maximum); ops with a parameter struct reject unknown ones.
  if (op->attr_parser) op->attr_parser(attrs.get());
  return attrs;
}

}  // namespace mxnet
