// cast_storage: convert an array between dense ('default'), row_sparse and csr storage.
#include <cstring>

#include "mxnet/ndarray.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace {

struct CastStorageParam : public dmlc::Parameter<CastStorageParam> {
  int stype;
  DMLC_DECLARE_PARAMETER(CastStorageParam) {
    DMLC_DECLARE_FIELD(stype)
        .add_enum("default", kDefaultStorage)
        .add_enum("row_sparse", kRowSparseStorage)
        .add_enum("csr", kCSRStorage)
        .describe("Output storage type.");
  }
};
DMLC_REGISTER_PARAMETER(CastStorageParam);

bool CastStorageInferStorage(const NodeAttrs& attrs, int, DispatchMode* mode,
                             std::vector<int>* in, std::vector<int>* out) {
  const int target = Param<CastStorageParam>(attrs).stype;
  const int given = (*in)[0];
  if (given == kUndefinedStorage) return false;
  CHECK(target != kCSRStorage || given != kRowSparseStorage)
      << "Operator cast_storage: argument stype 'csr' cannot be reached from row_sparse "
      << "storage; expected a dense or csr input";
  CHECK(target != kRowSparseStorage || given != kCSRStorage)
      << "Operator cast_storage: argument stype 'row_sparse' cannot be reached from csr "
      << "storage; expected a dense or row_sparse input";
  (*out)[0] = target;
  *mode = given == kDefaultStorage && target == kDefaultStorage ? DispatchMode::kFCompute
                                                                : DispatchMode::kFComputeEx;
  return true;
}

bool CastStorageShape(const NodeAttrs& attrs, std::vector<TShape>* in, std::vector<TShape>* out) {
  const int target = Param<CastStorageParam>(attrs).stype;
  if ((*in)[0].ndim() >= 0 && target == kCSRStorage) {
    CHECK_EQ((*in)[0].ndim(), 2) << "Operator cast_storage: argument stype 'csr' needs a 2-d "
                                 << "input, given shape " << (*in)[0];
  }
  return ElemwiseShape(attrs, in, out);
}

// dense -> dense: a copy.
void CastStorageDense(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || in[0].dptr_ == out[0].dptr_) return;
  CHECK_NE(req[0], kAddTo) << "Operator cast_storage: req 'add' is not supported";
  std::memcpy(out[0].dptr_, in[0].dptr_, in[0].Size() * DTypeSize(in[0].type_flag_));
}

void CastStorageEx(const NodeAttrs&, const OpContext&, const std::vector<NDArray>& in,
                   const std::vector<OpReqType>& req, const std::vector<NDArray>& out) {
  if (req[0] == kNullOp) return;
  CHECK_NE(req[0], kAddTo) << "Operator cast_storage: req 'add' is not supported";
  CastStorageSync(in[0], out[0]);
}

}  // namespace

NNVM_REGISTER_OP(cast_storage)
    .describe(R"doc(Casts tensor storage type to the new type.

When an NDArray with default storage type is cast to csr or row_sparse storage,
the result is compact, which means:

- for csr, zero values will not be retained
- for row_sparse, row slices of all zeros will not be retained

The storage type of ``cast_storage`` output depends on stype parameter:

- cast_storage(csr, 'default') = default
- cast_storage(row_sparse, 'default') = default
- cast_storage(default, 'csr') = csr
- cast_storage(default, 'row_sparse') = row_sparse
- cast_storage(csr, 'csr') = csr
- cast_storage(row_sparse, 'row_sparse') = row_sparse

Example::

    dense = [[ 0.,  1.,  0.],
             [ 2.,  0.,  3.],
             [ 0.,  0.,  0.],
             [ 0.,  0.,  0.]]

    # cast to row_sparse storage type
    rsp = cast_storage(dense, 'row_sparse')
    rsp.indices = [0, 1]
    rsp.values = [[ 0.,  1.,  0.],
                  [ 2.,  0.,  3.]]

    # cast to csr storage type
    csr = cast_storage(dense, 'csr')
    csr.indices = [1, 0, 2]
    csr.values = [ 1.,  2.,  3.]
    csr.indptr = [0, 1, 3, 3, 3]
)doc")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<CastStorageParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(CastStorageParam::__FIELDS__())
    .set_attr<FInferShape>("FInferShape", CastStorageShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FInferStorageType>("FInferStorageType", CastStorageInferStorage)
    .set_attr<FCompute>("FCompute<cpu>", CastStorageDense)
    .set_attr<FComputeEx>("FComputeEx<cpu>", CastStorageEx)
    .set_attr<FGradient>("FGradient", [](const ObjectPtr& n, const std::vector<NodeEntry>& og) {
      return std::vector<NodeEntry>{MakeNode("_copy", GradName(n), {og[0]}, {}, &n)};
    });

}  // namespace op
}  // namespace mxnet
