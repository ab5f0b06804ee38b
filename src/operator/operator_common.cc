// Shared inference rules, gradient-node helpers and the OpenMP size threshold used by every
// operator family.
#include "operator/operator_common.h"

#include <atomic>
#include <cstdio>
#include <limits>
#include <sstream>

#if MXNET_USE_OPENMP
#include <omp.h>
#endif

#include "common/env.h"

namespace mxnet {
namespace op {

namespace {

index_t ComputeParallelGrain(int omp_threads) {
  if (!env::GetBool("MXNET_USE_OPERATOR_TUNING") || !env::GetBool("MXNET_ENABLE_OPERATOR_TUNING")) {
    return 2;
  }
  int64_t cores = env::GetInt("MXNET_USE_NUM_CORES_OPERATOR_TUNING");
  if (cores <= 0) cores = omp_threads;
  // One core never pays for a fork; /8 keeps callers' small multiples from overflowing.
  if (cores <= 1) return std::numeric_limits<index_t>::max() / 8;
  return (kForkCost * cores + cores - 2) / (cores - 1);  // ceil(kForkCost * c / (c - 1))
}

}  // namespace

index_t ParallelGrain() {
  // Recomputed only when the variables may have changed (env::ResetCache, e.g. MXSetEnv) or
  // the OpenMP thread count did: a few relaxed loads per operator call otherwise.
  static std::atomic<uint64_t> seen_generation{~uint64_t{0}};
  static std::atomic<int> seen_threads{0};
  static std::atomic<index_t> grain{0};
#if MXNET_USE_OPENMP
  const int threads = omp_get_max_threads();
#else
  const int threads = 1;
#endif
  const uint64_t generation = env::CacheGeneration();
  if (generation == seen_generation.load(std::memory_order_acquire) &&
      threads == seen_threads.load(std::memory_order_relaxed)) {
    return grain.load(std::memory_order_relaxed);
  }
  const index_t value = ComputeParallelGrain(threads);
  grain.store(value, std::memory_order_relaxed);
  seen_threads.store(threads, std::memory_order_relaxed);
  seen_generation.store(generation, std::memory_order_release);
  return value;
}

std::vector<std::string> ListInputNames(const NodeAttrs& attrs) {
  static const auto& names = nnvm::Op::GetAttr<FListInputNames>("FListInputNames");
  if (attrs.op == nullptr) return {};
  if (names.contains(attrs.op)) return names[attrs.op](attrs);
  std::vector<std::string> v;
  for (const auto& a : attrs.op->arguments) {
    if (a.type.rfind("NDArray", 0) == 0 || a.type.rfind("Symbol", 0) == 0) v.push_back(a.name);
  }
  return v;
}

std::string InputName(const NodeAttrs& attrs, size_t i) {
  std::vector<std::string> v = ListInputNames(attrs);
  if (i < v.size()) return v[i];
  return "input" + std::to_string(i);
}

bool FirstInputType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  AssignType(attrs, "output", &(*out)[0], (*in)[0]);
  AssignInputType(attrs, 0, &(*in)[0], (*out)[0]);
  return (*out)[0] >= 0;
}

std::vector<NodeEntry> NoGradient(const ObjectPtr& n, const std::vector<NodeEntry>&) {
  return std::vector<NodeEntry>(n->inputs.size());
}

void ShapeError(const NodeAttrs& attrs, const std::string& arg, const TShape& expected,
                const TShape& given) {
  LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg << " has shape " << given
             << ", expected " << expected;
  throw;  // unreachable
}

namespace {

// Unify a slot with a known value; false when they disagree (the caller names the argument).
bool MergeShape(TShape* slot, const TShape& s) {
  if (s.is_none()) return true;
  if (slot->is_none()) {
    *slot = s;
    return true;
  }
  if (slot->ndim() != s.ndim()) return false;
  for (int i = 0; i < s.ndim(); ++i) {
    if (s[i] < 0) continue;
    if ((*slot)[i] < 0) (*slot)[i] = s[i];
    else if ((*slot)[i] != s[i]) return false;
  }
  return true;
}

bool MergeType(int* slot, int t) {
  if (t < 0) return true;
  if (*slot < 0) *slot = t;
  return *slot == t;
}

[[noreturn]] void TypeError(const NodeAttrs& attrs, const std::string& arg, int expected,
                            int given) {
  LOG(FATAL) << "Operator " << attrs.op->name << ": argument " << arg << " has dtype "
             << DTypeName(given) << ", expected " << DTypeName(expected);
  throw;  // unreachable
}

}  // namespace

void AssignShape(const NodeAttrs& attrs, const std::string& arg, TShape* slot, const TShape& s) {
  if (!MergeShape(slot, s)) ShapeError(attrs, arg, s, *slot);
}

void AssignType(const NodeAttrs& attrs, const std::string& arg, int* slot, int t) {
  if (!MergeType(slot, t)) TypeError(attrs, arg, t, *slot);
}

void AssignInputShape(const NodeAttrs& attrs, size_t i, TShape* slot, const TShape& s) {
  if (!MergeShape(slot, s)) ShapeError(attrs, InputName(attrs, i), s, *slot);
}

void AssignInputType(const NodeAttrs& attrs, size_t i, int* slot, int t) {
  if (!MergeType(slot, t)) TypeError(attrs, InputName(attrs, i), t, *slot);
}

bool ElemwiseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  TShape s;
  for (size_t i = 0; i < in->size(); ++i) AssignInputShape(attrs, i, &s, (*in)[i]);
  for (size_t i = 0; i < out->size(); ++i) AssignShape(attrs, "output", &s, (*out)[i]);
  for (auto& x : *in) x = s;
  for (auto& x : *out) x = s;
  return s.IsKnown();
}

bool ElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(attrs, i, &t, (*in)[i]);
  for (size_t i = 0; i < out->size(); ++i) AssignType(attrs, "output", &t, (*out)[i]);
  for (auto& x : *in) x = t;
  for (auto& x : *out) x = t;
  return t >= 0;
}

bool FixedOutputType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out,
                     int out_dtype) {
  int t = -1;
  for (size_t i = 0; i < in->size(); ++i) AssignInputType(attrs, i, &t, (*in)[i]);
  for (auto& x : *in) x = t;
  for (auto& x : *out) AssignType(attrs, "output", &x, out_dtype);
  return t >= 0;
}

bool BinaryBroadcastShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out) {
  const TShape& a = (*in)[0];
  const TShape& b = (*in)[1];
  if (!a.IsKnown() || !b.IsKnown()) return false;
  int nd = std::max(a.ndim(), b.ndim());
  TShape o(nd, 1);
  for (int i = 0; i < nd; ++i) {
    int ia = i - (nd - a.ndim()), ib = i - (nd - b.ndim());
    dim_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) {
      o[i] = da;
    } else if (da == 1) {
      o[i] = db;
    } else {
      LOG(FATAL) << "Operator " << attrs.op->name << ": operands could not be broadcast together "
                 << "with shapes " << a << " " << b;
    }
  }
  AssignShape(attrs, "output", &(*out)[0], o);
  return true;
}

NodeEntry MakeNode(const char* op_name, const std::string& name, std::vector<NodeEntry> inputs,
                   std::unordered_map<std::string, std::string> dict, const ObjectPtr* fwd) {
  ObjectPtr n = nnvm::CreateNode(op_name, name, std::move(inputs), std::move(dict));
  if (fwd != nullptr) n->control_deps.push_back(*fwd);
  return NodeEntry(n, 0, 0);
}

std::vector<NodeEntry> ZeroGrads(const ObjectPtr& n) {
  std::vector<NodeEntry> ret;
  for (const NodeEntry& in : n->inputs) {
    ret.push_back(MakeNode("zeros_like", n->attrs.name + "_zero_grad", {in}));
  }
  return ret;
}

std::string ScalarText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

}  // namespace op
}  // namespace mxnet
