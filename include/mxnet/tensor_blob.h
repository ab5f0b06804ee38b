// TBlob: a typed view of memory (pointer, shape, dtype, device) handed to kernels.
#ifndef MXNET_TENSOR_BLOB_H_
#define MXNET_TENSOR_BLOB_H_

#include "mxnet/base.h"

namespace mxnet {

struct TBlob {
  void* dptr_{nullptr};
  TShape shape_;
  int type_flag_{kFloat32};
  Context ctx;

  TBlob() = default;
  TBlob(void* dptr, const TShape& shape, int dtype, Context c)
      : dptr_(dptr), shape_(shape), type_flag_(dtype), ctx(c) {}

  template <typename DType>
  DType* dptr() const { return static_cast<DType*>(dptr_); }
  size_t Size() const { return shape_.Size(); }
  int ndim() const { return shape_.ndim(); }
  /*! \brief The same memory seen with another shape of equal size. */
  TBlob reshape(const TShape& s) const { return TBlob(dptr_, s, type_flag_, ctx); }
};

}  // namespace mxnet

#endif  // MXNET_TENSOR_BLOB_H_
