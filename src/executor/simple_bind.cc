// Executor::SimpleBind and Executor::Reshape: choosing or allocating the bound arrays from
// inferred shapes and dtypes, then Bind.
#include <dmlc/logging.h>

#include <algorithm>
#include <sstream>

#include "executor/bind_storage_types.h"
#include "imperative/storage_dispatch.h"
#include "mxnet/executor.h"
#include "nnvm/graph.h"
#include "nnvm/pass.h"

namespace mxnet {
namespace {

NDArray Zeros(const TShape& shape, int dtype, const Context& ctx) {
  static const nnvm::Op* zeros = nnvm::Op::GetOrThrow("_zeros");
  std::ostringstream s;
  s << shape;
  auto attrs = Imperative::ParseAttrs(zeros, {{"shape", s.str()}, {"dtype", DTypeName(dtype)}});
  std::vector<NDArray> out{NDArray(shape, ctx, true, dtype)};
  bool rec = Imperative::Get()->set_is_recording(false);
  try {
    Imperative::Get()->Invoke(ctx, attrs, {}, &out);
  } catch (...) {
    Imperative::Get()->set_is_recording(rec);
    throw;
  }
  Imperative::Get()->set_is_recording(rec);
  return out[0];
}

// A new argument, gradient or auxiliary array: zeros, or a sparse array with no element.
NDArray NewArray(int stype, const TShape& shape, int dtype, const Context& ctx) {
  if (stype == kDefaultStorage || stype == kUndefinedStorage) return Zeros(shape, dtype, ctx);
  return NDArray(static_cast<NDArrayStorageType>(stype), shape, ctx, true, dtype);
}

size_t Bytes(const TShape& s, int dtype) { return s.Size() * DTypeSize(dtype); }

// The error MXNet gives when shapes stay unknown, listing the arguments concerned.
[[noreturn]] void Undecided(const char* what, const std::vector<std::string>& names,
                            const std::vector<std::string>& values) {
  std::ostringstream os;
  os << "simple_bind: cannot decide the " << what << " of the following arguments; provide "
     << "them as inputs:";
  for (size_t i = 0; i < names.size(); ++i) os << "\n\t" << names[i] << ": " << values[i];
  throw dmlc::Error(os.str());
}

}  // namespace

std::unique_ptr<Executor> Executor::SimpleBind(
    const nnvm::Symbol& sym, const Context& ctx, const std::map<std::string, TShape>& shapes,
    const std::map<std::string, int>& dtypes, const std::vector<uint32_t>& grad_reqs,
    const Executor* shared, const std::vector<std::string>& shared_arg_names,
    std::map<std::string, NDArray>* shared_buffer, const std::map<std::string, int>& stypes,
    const std::map<std::string, Context>& group2ctx) {
  nnvm::IndexedGraph idx(sym.outputs);
  // group2ctx: a variable's arrays live on its ctx_group's context (else on ctx)
  std::map<std::string, Context> var_ctx;
  for (uint32_t nid : idx.input_nodes()) {
    const nnvm::Node& n = *idx[nid].source;
    auto g = n.attrs.dict.find("__ctx_group__");
    if (g == n.attrs.dict.end()) continue;
    auto c = group2ctx.find(g->second);
    if (c != group2ctx.end()) var_ctx[n.attrs.name] = c->second;
  }
  auto ctx_of = [&](const std::string& name) -> Context {
    auto it = var_ctx.find(name);
    return it == var_ctx.end() ? ctx : it->second;
  };
  std::vector<std::string> keys;
  std::vector<TShape> known;
  for (const auto& kv : shapes) {
    keys.push_back(kv.first);
    known.push_back(kv.second);
  }
  auto sh = nnvm::InferSymbolShapes(sym.outputs, keys, known);
  // dtypes: the given ones; when none is given, float32 for every argument without a
  // __dtype__ attribute (MXNet 1.9.1's default type_dict).
  std::vector<std::string> tkeys;
  std::vector<int> tknown;
  for (const auto& kv : dtypes) {
    tkeys.push_back(kv.first);
    tknown.push_back(kv.second);
  }
  for (uint32_t nid : dtypes.empty() ? idx.arg_nodes() : std::vector<uint32_t>()) {
    const nnvm::Node& n = *idx[nid].source;
    if (!n.attrs.dict.count("__dtype__")) {
      tkeys.push_back(n.attrs.name);
      tknown.push_back(kFloat32);
    }
  }
  auto ty = nnvm::InferSymbolTypes(sym.outputs, tkeys, tknown);

  std::vector<std::string> arg_names, aux_names, bad, bad_values;
  for (uint32_t nid : idx.arg_nodes()) arg_names.push_back(idx[nid].source->attrs.name);
  for (uint32_t nid : idx.mutable_input_nodes()) aux_names.push_back(idx[nid].source->attrs.name);
  auto check_known = [&](const std::vector<std::string>& names, const std::vector<TShape>& s) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (!s[i].IsKnown()) {
        bad.push_back(names[i]);
        std::ostringstream os;
        os << s[i];
        bad_values.push_back(os.str());
      }
    }
  };
  check_known(arg_names, sh.arg);
  check_known(aux_names, sh.aux);
  if (!bad.empty()) Undecided("shapes (-1 means unknown)", bad, bad_values);
  for (size_t i = 0; i < arg_names.size(); ++i) {
    if (ty.arg[i] < 0) {
      bad.push_back(arg_names[i]);
      bad_values.push_back("None");
    }
  }
  for (size_t i = 0; i < aux_names.size(); ++i) {
    if (ty.aux[i] < 0) {
      bad.push_back(aux_names[i]);
      bad_values.push_back("None");
    }
  }
  if (!bad.empty()) Undecided("dtypes", bad, bad_values);

  std::vector<uint32_t> reqs = grad_reqs;
  if (reqs.empty()) reqs.assign(arg_names.size(), kGradWrite);
  CHECK_EQ(reqs.size(), arg_names.size())
      << "simple_bind: " << arg_names.size() << " grad_req values expected, given " << reqs.size();

  const exec::BindStorageTypes st = exec::InferBindStorageTypes(sym, stypes, reqs, ctx.dev_mask());

  auto find_shared = [&](const std::vector<std::string>& names, const std::vector<NDArray>& arrays,
                         const std::string& name) -> const NDArray* {
    for (size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return &arrays[i];
    }
    return nullptr;
  };
  std::vector<NDArray> in_args, arg_grads, aux;
  for (size_t i = 0; i < arg_names.size(); ++i) {
    const std::string& name = arg_names[i];
    const TShape& s = sh.arg[i];
    int t = ty.arg[i];
    const Context actx = ctx_of(name);
    // A model parameter (named in shared_arg_names) shares shared's arrays, or gets its own;
    // it never goes into shared_buffer (MXNet 1.9.1's rule).
    const bool param = std::find(shared_arg_names.begin(), shared_arg_names.end(), name) !=
                       shared_arg_names.end();
    const NDArray* from = param && shared != nullptr
                              ? find_shared(shared->arg_names(), shared->in_args(), name)
                              : nullptr;
    if (from != nullptr) {
      CHECK_EQ(from->storage_type(), st.args[i])
          << "simple_bind: shared argument " << name << " has storage type "
          << imperative::StorageTypeName(from->storage_type()) << " in the shared executor, "
          << "this symbol needs " << imperative::StorageTypeName(st.args[i]);
      CHECK(from->shape() == s && from->dtype() == t)
          << "simple_bind: shared argument " << name << " has shape " << from->shape() << " and "
          << "dtype " << DTypeName(from->dtype()) << " in the shared executor, this symbol needs "
          << s << " and " << DTypeName(t);
      in_args.push_back(*from);
      const NDArray* g = find_shared(shared->arg_names(), shared->arg_grads(), name);
      // (a sparse gradient is never shared: its kernel reallocates it)
      if (reqs[i] != kGradNull && g != nullptr && !g->is_none() &&
          g->storage_type() == kDefaultStorage && st.grads[i] == kDefaultStorage) {
        arg_grads.push_back(*g);
      } else {
        arg_grads.push_back(reqs[i] == kGradNull ? NDArray() : NewArray(st.grads[i], s, t, actx));
      }
      continue;
    }
    if (param || st.args[i] != kDefaultStorage) {  // sparse ones are not in the buffer either
      in_args.push_back(NewArray(st.args[i], s, t, actx));
    } else if (shared_buffer != nullptr) {
      auto it = shared_buffer->find(name);
      if (it != shared_buffer->end() && it->second.dtype() == t && it->second.ctx() == actx &&
          Bytes(it->second.shape(), t) >= Bytes(s, t)) {
        in_args.push_back(it->second.AsArray(s, t));
      } else {
        in_args.push_back(Zeros(s, t, actx));
        (*shared_buffer)[name] = in_args.back();
      }
    } else {
      in_args.push_back(Zeros(s, t, actx));
    }
    arg_grads.push_back(reqs[i] == kGradNull ? NDArray() : NewArray(st.grads[i], s, t, actx));
  }
  for (size_t i = 0; i < aux_names.size(); ++i) {
    const NDArray* from =
        shared != nullptr ? find_shared(shared->aux_names(), shared->aux_states(), aux_names[i])
                          : nullptr;
    if (from != nullptr && from->shape() == sh.aux[i] && from->dtype() == ty.aux[i] &&
        from->storage_type() == st.aux[i]) {
      aux.push_back(*from);
    } else {
      aux.push_back(NewArray(st.aux[i], sh.aux[i], ty.aux[i], ctx_of(aux_names[i])));
    }
  }
  return Bind(sym, ctx, in_args, arg_grads, reqs, aux, nullptr, group2ctx);
}

std::unique_ptr<Executor> Executor::Reshape(const std::map<std::string, TShape>& shapes,
                                            bool partial_shaping, bool allow_up_sizing) const {
  std::vector<std::string> keys;
  std::vector<TShape> known;
  for (const auto& kv : shapes) {
    keys.push_back(kv.first);
    known.push_back(kv.second);
  }
  auto sh = nnvm::InferSymbolShapes(symbol_.outputs, keys, known);
  CHECK(sh.complete) << "reshape: the new shapes do not decide every shape of the graph";
  // An array for a new shape: the old one when unchanged, a view of its memory when smaller,
  // new memory when larger and allowed.
  auto resized = [&](const std::string& name, const NDArray& old, const TShape& s,
                     bool named) -> NDArray {
    if (old.is_none()) return old;
    if (old.shape() == s) return old;
    if (old.storage_type() != kDefaultStorage) {  // sparse: no views; a new empty array
      return NDArray(static_cast<NDArrayStorageType>(old.storage_type()), s, old.ctx(), true,
                     old.dtype());
    }
    CHECK(named || partial_shaping)
        << "reshape: shape of unspecified array arg:" << name << " changed. This can cause the "
        << "new executor to not share parameters with the old one. Please check for error in "
        << "network. If this is intended, set partial_shaping=True to suppress this warning.";
    if (Bytes(s, old.dtype()) <= Bytes(old.shape(), old.dtype())) return old.AsArray(s, old.dtype());
    CHECK(allow_up_sizing)
        << "reshape: new shape of arg:" << name << " larger than original. First making a big "
        << "executor and then down sizing it is more efficient than the reverse. If you really "
        << "want to up size, set allow_up_sizing=True to enable allocation of new arrays.";
    return NDArray(s, old.ctx(), false, old.dtype());
  };
  std::vector<NDArray> in_args, arg_grads, aux;
  for (size_t i = 0; i < arg_names_.size(); ++i) {
    bool named = shapes.count(arg_names_[i]) != 0;
    in_args.push_back(resized(arg_names_[i], in_args_[i], sh.arg[i], named));
    arg_grads.push_back(resized(arg_names_[i], arg_grads_[i], sh.arg[i], named));
  }
  for (size_t i = 0; i < aux_names_.size(); ++i) {
    aux.push_back(resized(aux_names_[i], aux_states_[i], sh.aux[i], shapes.count(aux_names_[i]) != 0));
  }
  auto ex = Bind(symbol_, ctx_, in_args, arg_grads, grad_reqs_, aux, this, group2ctx_);
  ex->SetMonitorCallback(monitor_, monitor_all_);
  return ex;
}

}  // namespace mxnet
