// Shared helpers for declaring operators: argument parsing, inference rules, dtype dispatch,
// OpenMP loops and gradient-node construction.
#ifndef MXNET_OPERATOR_OPERATOR_COMMON_H_
#define MXNET_OPERATOR_OPERATOR_COMMON_H_

#include <dmlc/logging.h>
#include <dmlc/parameter.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/type_switch.h"
#include "mxnet/base.h"
#include "mxnet/half.h"
#include "mxnet/op_attr_types.h"
#include "mxnet/tensor_blob.h"
#include "nnvm/node.h"
#include "nnvm/op.h"

namespace mxnet {
namespace op {

using nnvm::NodeAttrs;
using nnvm::NodeEntry;
using nnvm::ObjectPtr;

// dtype dispatch: MXNET_TYPE_SWITCH and friends live in common/type_switch.h.

// ---------------------------------------------------------------- compute types
/*! \brief Type sums and products of DType accumulate in: float for half_t, else DType. */
template <typename DType> struct AccType { using type = DType; };
template <> struct AccType<half_t> { using type = float; };

/*! \brief Type a math function of DType is evaluated in: double for float64 and 32/64-bit
 *  integers (exact for their values), float otherwise (float16 and 8-bit types). */
template <typename DType> struct MathType { using type = float; };
template <> struct MathType<double> { using type = double; };
template <> struct MathType<int32_t> { using type = double; };
template <> struct MathType<int64_t> { using type = double; };

/*! \brief A double scalar argument as DType: bool means "not zero", integers wrap through
 *  int64 like C's conversions of in-range values, float16 rounds through float. */
template <typename DType>
inline DType ScalarAs(double v) {
  if constexpr (std::is_same<DType, bool>::value) {
    return v != 0.0;
  } else if constexpr (std::is_integral<DType>::value) {
    return static_cast<DType>(static_cast<int64_t>(v));
  } else if constexpr (std::is_same<DType, half_t>::value) {
    return half_t(static_cast<float>(v));
  } else {
    return static_cast<DType>(v);
  }
}

// ---------------------------------------------------------------- parallel loops
/*!
 * \brief Elements (units of work) from which a CPU loop goes parallel with OpenMP; below it
 *  the loop stays on one thread. The rule, read per call from MXNET_USE_OPERATOR_TUNING,
 *  MXNET_ENABLE_OPERATOR_TUNING and MXNET_USE_NUM_CORES_OPERATOR_TUNING (docs/env_var.md):
 *  c cores pay off when n * (1 - 1/c) >= kForkCost, the cost of an OpenMP fork in element
 *  operations, i.e. from n = kForkCost * c / (c - 1); with tuning off every loop of 2 or
 *  more elements goes parallel.
 */
index_t ParallelGrain();
/*! \brief OpenMP fork cost, in element operations, that ParallelGrain weighs. */
constexpr index_t kForkCost = 16384;

/*! \brief fn(i) for i in [0, n), split across the OpenMP threads when parallel is true. A
 *  branch rather than an OpenMP `if` clause: with the clause false, libgomp still builds a
 *  one-thread team (a heap allocation and more) on every call, which dominates tiny ops. */
template <typename Fn>
inline void LoopMaybeParallel(bool parallel, index_t n, Fn fn) {
#if MXNET_USE_OPENMP
  if (parallel) {
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i) fn(i);
    return;
  }
#endif
  for (index_t i = 0; i < n; ++i) fn(i);
}

template <typename Fn>
inline void ParallelFor(index_t n, Fn fn) {
  LoopMaybeParallel(n >= ParallelGrain(), n, fn);
}

/*! \brief Write v into out according to req (kWriteTo / kWriteInplace / kAddTo). */
template <typename DType>
inline void Assign(DType* out, OpReqType req, DType v) {
  if (req == kAddTo) *out = static_cast<DType>(*out + v);
  else *out = v;
}

// ---------------------------------------------------------------- arguments
/*! \brief attr_parser for ops with a dmlc::Parameter struct; errors name the operator. */
template <typename PType>
void ParamParser(NodeAttrs* attrs) {
  PType param;
  try {
    param.Init(attrs->dict);
  } catch (const dmlc::ParamError& e) {
    // dmlc's message for a bad value does not always name the key: find it.
    std::string key;
    for (const auto& kv : attrs->dict) {
      try {
        PType probe;
        probe.UpdateAllowUnknown(std::map<std::string, std::string>{{kv.first, kv.second}});
      } catch (const dmlc::ParamError&) {
        key = kv.first;
        break;
      }
    }
    if (key.empty()) {
      LOG(FATAL) << "Operator " << attrs->op->name << ": invalid argument: " << e.what();
    }
    LOG(FATAL) << "Operator " << attrs->op->name << ": invalid value for argument " << key
               << "='" << attrs->dict.at(key) << "': " << e.what();
  }
  attrs->parsed = std::move(param);
}

template <typename PType>
inline const PType& Param(const NodeAttrs& attrs) {
  return *std::any_cast<PType>(&attrs.parsed);
}

// ---------------------------------------------------------------- inference rules
/*! \brief Throw the standard shape error for argument arg of attrs.op. */
[[noreturn]] void ShapeError(const NodeAttrs& attrs, const std::string& arg,
                             const TShape& expected, const TShape& given);
/*! \brief Unify *slot with s: fill if unknown, else they must agree. */
void AssignShape(const NodeAttrs& attrs, const std::string& arg, TShape* slot, const TShape& s);
void AssignType(const NodeAttrs& attrs, const std::string& arg, int* slot, int t);
/*! \brief The same for input i; its name is looked up only for the error (a hot path). */
void AssignInputShape(const NodeAttrs& attrs, size_t i, TShape* slot, const TShape& s);
void AssignInputType(const NodeAttrs& attrs, size_t i, int* slot, int t);

/*! \brief All inputs and outputs share one shape. */
bool ElemwiseShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out);
/*! \brief All inputs and outputs share one dtype. */
bool ElemwiseType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);
/*! \brief Inputs share a dtype; outputs are forced to out_dtype. */
bool FixedOutputType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out,
                     int out_dtype);
/*! \brief Broadcasting shape rule of two inputs (numpy rules; MXNet 1.x requires equal ndim
 *  or a size-1 dim for broadcast_* ops, numpy-style extension to the left is accepted). */
bool BinaryBroadcastShape(const NodeAttrs& attrs, std::vector<TShape>* in,
                          std::vector<TShape>* out);
/*! \brief Output dtype follows input 0; other inputs are free (the `like` of reshape_like). */
bool FirstInputType(const NodeAttrs& attrs, std::vector<int>* in, std::vector<int>* out);
/*! \brief The op's input names: its FListInputNames when declared, else the names of its
 *  declared NDArray arguments (add_argument(name, "NDArray-or-Symbol", ...)). */
std::vector<std::string> ListInputNames(const NodeAttrs& attrs);
/*! \brief Name of input i as the op lists it (for messages). */
std::string InputName(const NodeAttrs& attrs, size_t i);

// ---------------------------------------------------------------- declaration helpers
/*! \brief FListInputNames returning fixed names. */
inline FListInputNames InputNames(std::vector<std::string> names) {
  return [names = std::move(names)](const NodeAttrs&) { return names; };
}
/*! \brief Every dtype the framework has, in the dtype table's order. */
constexpr std::initializer_list<int> kAllDTypes = {kFloat32, kFloat64, kFloat16, kUint8,
                                                   kInt8,    kInt32,   kInt64,   kBool};
/*! \brief Add dtypes as the enum values of a dtype argument, named as the dtype table names
 *  them: AddDTypeEnums(DMLC_DECLARE_FIELD(dtype), {kFloat32, kFloat64}).set_default(...). */
template <typename Field>
Field& AddDTypeEnums(Field& field, std::initializer_list<int> dtypes) {
  for (int t : dtypes) field.add_enum(DTypeName(t), t);
  return field;
}
/*! \brief FResourceRequest asking for temp space only. */
inline std::vector<ResourceRequest> TempSpaceRequest(const NodeAttrs&) {
  return {ResourceRequest::kTempSpace};
}

// ---------------------------------------------------------------- gradient helpers
/*! \brief A node applying op_name to inputs, named after the forward node. */
NodeEntry MakeNode(const char* op_name, const std::string& name, std::vector<NodeEntry> inputs,
                   std::unordered_map<std::string, std::string> dict = {},
                   const ObjectPtr* fwd = nullptr);
/*! \brief Output i of the forward node n. */
inline NodeEntry Out(const ObjectPtr& n, uint32_t i = 0) { return NodeEntry(n, i, 0); }
/*! \brief Gradient of zero for each input of n. */
std::vector<NodeEntry> ZeroGrads(const ObjectPtr& n);
/*! \brief FGradient of an op whose inputs get no gradient at all (samplers). */
std::vector<NodeEntry> NoGradient(const ObjectPtr& n, const std::vector<NodeEntry>& ograds);
/*! \brief Name of the backward node of the forward node n. */
inline std::string GradName(const ObjectPtr& n) { return n->attrs.name + "_backward"; }
/*! \brief Text of a double exactly as Python's repr would parse back. */
std::string ScalarText(double v);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPERATOR_COMMON_H_
