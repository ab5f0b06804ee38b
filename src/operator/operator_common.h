// Shared helpers for declaring operators: argument parsing, inference rules, dtype dispatch,
// OpenMP loops and gradient-node construction.
#ifndef MXNET_OPERATOR_OPERATOR_COMMON_H_
#define MXNET_OPERATOR_OPERATOR_COMMON_H_

#include <dmlc/logging.h>
#include <dmlc/parameter.h>

#include <algorithm>
#include <map>
#include <string>
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

/*! \brief Compute type of DType: float for half_t, else DType. */
template <typename DType> struct AccType { using type = DType; };
template <> struct AccType<half_t> { using type = float; };

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

template <typename Fn>
inline void ParallelFor(index_t n, Fn fn) {
#if MXNET_USE_OPENMP
#pragma omp parallel for schedule(static) if (n >= ParallelGrain())
#endif
  for (index_t i = 0; i < n; ++i) fn(i);
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
/*! \brief Name of input i as the op lists it (for messages). */
std::string InputName(const NodeAttrs& attrs, size_t i);

// ---------------------------------------------------------------- declaration helpers
/*! \brief FListInputNames returning fixed names. */
inline FListInputNames InputNames(std::vector<std::string> names) {
  return [names = std::move(names)](const NodeAttrs&) { return names; };
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
/*! \brief Text of a double exactly as Python's repr would parse back. */
std::string ScalarText(double v);

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_OPERATOR_COMMON_H_
