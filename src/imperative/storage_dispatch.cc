// Storage-type dispatch for Imperative::Invoke: FInferStorageType picks the kernel; an op
// without one for the given storage types runs on dense copies (storage fallback).
#include "imperative/storage_dispatch.h"

#include <dmlc/logging.h>

#include <mutex>
#include <set>
#include <sstream>
#include <string>

#include "common/env.h"
#include "imperative/ndarray_function.h"

namespace mxnet {
namespace imperative {

const char* StorageTypeName(int stype) {
  switch (stype) {
    case kDefaultStorage: return "default";
    case kRowSparseStorage: return "row_sparse";
    case kCSRStorage: return "csr";
    default: return "undefined";
  }
}

namespace {

std::string StypeList(const std::vector<int>& stypes) {
  std::string s = "[";
  for (size_t i = 0; i < stypes.size(); ++i) {
    s += (i ? ", " : "") + std::string(StorageTypeName(stypes[i]));
  }
  return s + "]";
}

void LogFallback(const nnvm::NodeAttrs& attrs, int dev_mask,
                 const std::vector<int>& in_stypes, const std::vector<int>& out_stypes) {
  static const bool verbose = env::GetBool("MXNET_STORAGE_FALLBACK_LOG_VERBOSE");
  if (!verbose) return;
  std::ostringstream os;
  os << "operator = " << attrs.op->name << "\ninput storage types = " << StypeList(in_stypes)
     << "\noutput storage types = " << StypeList(out_stypes) << "\nparams = {";
  bool first = true;
  for (const auto& kv : attrs.dict) {
    os << (first ? "" : ", ") << "\"" << kv.first << "\" : " << kv.second;
    first = false;
  }
  os << "}\ncontext.dev_mask = " << dev_mask;
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(os.str()).second) return;
  LOG(INFO) << "\nStorage type fallback detected:\n" << os.str()
            << "\nThe operator has no kernel for these storage types, so it runs its dense "
            << "kernel on temporary dense copies of the sparse inputs (the result is the same). "
            << "Set MXNET_STORAGE_FALLBACK_LOG_VERBOSE=0 to silence this message.";
}

std::vector<int> InputStypes(const std::vector<NDArray*>& inputs) {
  std::vector<int> s;
  for (NDArray* in : inputs) s.push_back(in->storage_type());
  return s;
}

}  // namespace

bool NeedsStorageDispatch(const nnvm::Op* op, const std::vector<NDArray*>& inputs,
                          const std::vector<NDArray>& outputs) {
  static const auto& finfer = nnvm::Op::GetAttr<FInferStorageType>("FInferStorageType");
  if (finfer.contains(op)) return true;
  for (NDArray* in : inputs) {
    if (in->storage_type() != kDefaultStorage) return true;
  }
  for (const NDArray& o : outputs) {
    if (!o.is_none() && o.storage_type() != kDefaultStorage) return true;
  }
  return false;
}

DispatchMode ChooseDispatchMode(const nnvm::NodeAttrs& attrs, int dev_mask,
                                std::vector<int>* in_stypes, std::vector<int>* out_stypes) {
  static const auto& finfer = nnvm::Op::GetAttr<FInferStorageType>("FInferStorageType");
  static const auto& fex = nnvm::Op::GetAttr<FComputeEx>("FComputeEx<cpu>");
  const nnvm::Op* op = attrs.op;
  const std::vector<int> given_in = *in_stypes;
  const std::vector<int> given = *out_stypes;
  const size_t n_out = given.size();
  DispatchMode mode = DispatchMode::kUndefined;
  if (finfer.contains(op)) {
    bool ok = finfer[op](attrs, dev_mask, &mode, in_stypes, out_stypes);
    // The op's choice must honour the given output storage types.
    for (size_t i = 0; ok && i < given.size(); ++i) {
      ok = given[i] == kUndefinedStorage || given[i] == (*out_stypes)[i];
    }
    // An op computed on NDArrays (FNDArrayFunction) takes any storage types.
    static const auto& fnd = nnvm::Op::GetAttr<FNDArrayFunction>("FNDArrayFunction");
    static const auto& fskip = nnvm::Op::GetAttr<FNDArrayFunctionSkip>("FNDArrayFunctionSkip");
    if (ok && mode == DispatchMode::kFComputeEx && !fex.contains(op) && !fnd.contains(op) &&
        !fskip.contains(op)) {
      ok = false;
    }
    if (ok && mode == DispatchMode::kFCompute) {
      // A dense kernel reads dense inputs and writes dense outputs only.
      for (int s : *in_stypes) ok = ok && s == kDefaultStorage;
      for (int s : *out_stypes) ok = ok && s == kDefaultStorage;
    }
    if (ok && mode != DispatchMode::kUndefined && mode != DispatchMode::kFComputeFallback) {
      return mode;
    }
  } else {
    bool dense = true;
    for (int s : given_in) dense = dense && s == kDefaultStorage;
    for (int s : given) dense = dense && (s == kDefaultStorage || s == kUndefinedStorage);
    if (dense) {
      out_stypes->assign(n_out, kDefaultStorage);
      return DispatchMode::kFCompute;
    }
  }
  // The dense kernel writes dense outputs; given outputs keep their own storage types.
  *in_stypes = given_in;
  for (size_t i = 0; i < n_out; ++i) {
    (*out_stypes)[i] = given[i] == kUndefinedStorage ? kDefaultStorage : given[i];
  }
  // Nothing sparse to densify: the dense kernel runs as it is.
  bool all_dense = true;
  for (int s : given_in) all_dense = all_dense && s == kDefaultStorage;
  for (int s : *out_stypes) all_dense = all_dense && s == kDefaultStorage;
  if (all_dense) return DispatchMode::kFCompute;
  LogFallback(attrs, dev_mask, given_in, *out_stypes);
  return DispatchMode::kFComputeFallback;
}

DispatchMode InferDispatchMode(const nnvm::NodeAttrs& attrs, const Context& ctx,
                               const std::vector<NDArray*>& inputs,
                               const std::vector<NDArray>& outputs, std::vector<int>* out_stypes) {
  const nnvm::Op* op = attrs.op;
  const uint32_t n_out = op->get_num_outputs ? op->get_num_outputs(attrs) : op->num_outputs;
  std::vector<int> in_stypes = InputStypes(inputs);
  out_stypes->assign(n_out, kUndefinedStorage);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].is_none()) (*out_stypes)[i] = outputs[i].storage_type();
  }
  return ChooseDispatchMode(attrs, ctx.dev_mask(), &in_stypes, out_stypes);
}

void InvokeFallback(const Context& default_ctx,
                    const std::shared_ptr<const nnvm::NodeAttrs>& attrs,
                    const std::vector<NDArray*>& inputs, std::vector<NDArray>* outputs,
                    const std::vector<bool>* unused) {
  static const auto& mutate = nnvm::Op::GetAttr<FMutateInputs>("FMutateInputs");
  static const auto& write_args = nnvm::Op::GetAttr<FWriteArguments>("FWriteArguments");
  std::vector<NDArray> dense_in;
  dense_in.reserve(inputs.size());
  for (NDArray* in : inputs) dense_in.push_back(CastStorage(in->Detach(), kDefaultStorage));
  std::vector<NDArray*> in_ptrs;
  for (NDArray& a : dense_in) in_ptrs.push_back(&a);
  std::vector<NDArray> dense_out;
  for (const NDArray& o : *outputs) {
    dense_out.push_back(o.is_none() || o.storage_type() != kDefaultStorage ? NDArray() : o);
  }
  Imperative* imp = Imperative::Get();
  const bool recording = imp->set_is_recording(false);
  try {
    imp->Invoke(default_ctx, attrs, in_ptrs, &dense_out, unused);
  } catch (...) {
    imp->set_is_recording(recording);
    throw;
  }
  imp->set_is_recording(recording);
  // Sparse inputs the op wrote get the new values back.
  std::vector<uint32_t> written;
  if (mutate.contains(attrs->op)) written = mutate[attrs->op](*attrs);
  if (write_args.contains(attrs->op)) {
    for (uint32_t i : write_args[attrs->op](*attrs)) written.push_back(i);
  }
  for (uint32_t i : written) {
    if (inputs[i]->storage_type() != kDefaultStorage) CopyFromTo(dense_in[i], *inputs[i]);
  }
  if (outputs->empty()) {
    *outputs = std::move(dense_out);
  } else {
    for (size_t i = 0; i < outputs->size(); ++i) {
      NDArray& o = (*outputs)[i];
      if (o.is_none()) {
        o = dense_out[i];
      } else if (o.storage_type() != kDefaultStorage) {
        CopyFromTo(dense_out[i], o);
      }
    }
  }
  if (recording) {
    std::vector<NDArray*> out_ptrs;
    for (NDArray& o : *outputs) out_ptrs.push_back(&o);
    imp->RecordExisting(*attrs, inputs, out_ptrs);
  }
}

}  // namespace imperative
}  // namespace mxnet
