// Sparse NDArrays (row_sparse, csr): creation, aux arrays, allocation by aux shapes, format
// checks, and conversion between storage types (what cast_storage and copies run).
#include <dmlc/logging.h>

#include <cstring>
#include <type_traits>

#include "common/type_switch.h"
#include "ndarray/ndarray_chunk.h"

namespace mxnet {
namespace {

const char* StypeName(int stype) {
  switch (stype) {
    case kDefaultStorage: return "default";
    case kRowSparseStorage: return "row_sparse";
    case kCSRStorage: return "csr";
    default: return "undefined";
  }
}

void CheckSparse(const NDArray& a, const char* what) {
  CHECK(!a.is_none()) << what << ": the array is empty (none)";
  CHECK_NE(a.storage_type(), kDefaultStorage) << what << ": expected a sparse array (row_sparse "
                                              << "or csr), given a dense one";
}

// The values' shape a sparse array of this logical shape has for these aux shapes.
TShape StorageShapeFor(int stype, const TShape& shape, const std::vector<TShape>& aux_shapes) {
  if (stype == kRowSparseStorage) {
    TShape s = shape;
    s[0] = aux_shapes[rowsparse::kIdx][0];
    return s;
  }
  return TShape({aux_shapes[csr::kIdx][0]});
}

// The aux shapes of a sparse array holding no element: a csr keeps an indptr of zeros.
std::vector<TShape> EmptyAuxShapes(int stype, const TShape& shape) {
  if (stype == kRowSparseStorage) return {TShape({0})};
  return {TShape({shape[0] + 1}), TShape({0})};
}

template <typename DType>
bool NonZero(DType v) {
  if constexpr (std::is_same<DType, half_t>::value) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != DType(0);
  }
}

void DenseToRowSparse(const TBlob& src, const NDArray& dst) {
  const dim_t rows = src.shape_[0];
  const size_t row_size = rows == 0 ? 0 : src.Size() / rows;
  MXNET_TYPE_SWITCH(src.type_flag_, DType, {
    const DType* s = src.dptr<DType>();
    std::vector<int64_t> kept;
    for (dim_t r = 0; r < rows; ++r) {
      for (size_t j = 0; j < row_size; ++j) {
        if (NonZero(s[r * row_size + j])) {
          kept.push_back(r);
          break;
        }
      }
    }
    dst.CheckAndAlloc({TShape({static_cast<dim_t>(kept.size())})});
    if (kept.empty()) return;
    int64_t* idx = dst.aux_data(rowsparse::kIdx).dptr<int64_t>();
    DType* d = dst.data().dptr<DType>();
    for (size_t k = 0; k < kept.size(); ++k) {
      idx[k] = kept[k];
      std::memcpy(d + k * row_size, s + kept[k] * row_size, row_size * sizeof(DType));
    }
  });
}

void DenseToCSR(const TBlob& src, const NDArray& dst) {
  CHECK_EQ(src.shape_.ndim(), 2) << "cast_storage: csr arrays are 2-d, given shape " << src.shape_;
  const dim_t rows = src.shape_[0], cols = src.shape_[1];
  MXNET_TYPE_SWITCH(src.type_flag_, DType, {
    const DType* s = src.dptr<DType>();
    size_t nnz = 0;
    for (size_t i = 0, n = src.Size(); i < n; ++i) nnz += NonZero(s[i]);
    dst.CheckAndAlloc({TShape({rows + 1}), TShape({static_cast<dim_t>(nnz)})});
    int64_t* indptr = dst.aux_data(csr::kIndPtr).dptr<int64_t>();
    int64_t* idx = nnz ? dst.aux_data(csr::kIdx).dptr<int64_t>() : nullptr;
    DType* d = nnz ? dst.data().dptr<DType>() : nullptr;
    size_t k = 0;
    indptr[0] = 0;
    for (dim_t r = 0; r < rows; ++r) {
      for (dim_t c = 0; c < cols; ++c) {
        const DType v = s[r * cols + c];
        if (!NonZero(v)) continue;
        idx[k] = c;
        d[k++] = v;
      }
      indptr[r + 1] = static_cast<int64_t>(k);
    }
  });
}

void SparseToDense(const NDArray& src, const TBlob& dst) {
  MXNET_TYPE_SWITCH(dst.type_flag_, DType, {
    DType* d = dst.dptr<DType>();
    std::fill(d, d + dst.Size(), DType(0));
    if (!src.storage_initialized()) return;
    const DType* v = src.data().dptr<DType>();
    if (src.storage_type() == kRowSparseStorage) {
      const TShape sshape = src.storage_shape();
      const size_t row_size = sshape.ProdShape(1, sshape.ndim());
      const int64_t* idx = src.aux_data(rowsparse::kIdx).dptr<int64_t>();
      for (dim_t k = 0; k < sshape[0]; ++k) {
        std::memcpy(d + idx[k] * row_size, v + k * row_size, row_size * sizeof(DType));
      }
    } else {
      const dim_t rows = src.shape()[0], cols = src.shape()[1];
      const int64_t* indptr = src.aux_data(csr::kIndPtr).dptr<int64_t>();
      const int64_t* idx = src.aux_data(csr::kIdx).dptr<int64_t>();
      for (dim_t r = 0; r < rows; ++r) {
        for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) d[r * cols + idx[k]] += v[k];
      }
    }
  });
}

void CopySparse(const NDArray& src, const NDArray& dst) {
  std::vector<TShape> aux_shapes;
  for (int i = 0; i < NumAuxData(src.storage_type()); ++i) aux_shapes.push_back(src.aux_shape(i));
  dst.CheckAndAlloc(aux_shapes);
  auto copy = [](const TBlob& s, const TBlob& d) {
    if (s.Size() > 0 && s.dptr_ != d.dptr_) {
      std::memcpy(d.dptr_, s.dptr_, s.Size() * DTypeSize(s.type_flag_));
    }
  };
  for (size_t i = 0; i < aux_shapes.size(); ++i) copy(src.aux_data(i), dst.aux_data(i));
  copy(src.data(), dst.data());
}

}  // namespace

NDArray::NDArray(NDArrayStorageType stype, const TShape& shape, Context ctx, bool delay_alloc,
                 int dtype, std::vector<int> aux_types, std::vector<TShape> aux_shapes)
    : shape_(shape), dtype_(dtype) {
  CHECK(stype == kRowSparseStorage || stype == kCSRStorage)
      << "NDArray: sparse storage type expected row_sparse (1) or csr (2), given " << stype;
  CHECK(IsValidDType(dtype)) << "NDArray: dtype " << dtype << " is not a supported type";
  CHECK(shape.IsKnown() && shape.ndim() >= 1) << "NDArray: a " << StypeName(stype)
                                              << " array needs a known shape, given " << shape;
  CHECK(stype != kCSRStorage || shape.ndim() == 2)
      << "NDArray: csr arrays are 2-d, given shape " << shape;
  const int nad = NumAuxData(stype);
  if (aux_types.empty()) aux_types.assign(nad, kInt64);
  CHECK_EQ(static_cast<int>(aux_types.size()), nad)
      << "NDArray: a " << StypeName(stype) << " array has " << nad << " aux arrays, given "
      << aux_types.size() << " aux types";
  for (int t : aux_types) {
    CHECK_EQ(t, kInt64) << "NDArray: sparse indices are int64, given aux type " << DTypeName(t);
  }
  const bool empty = aux_shapes.empty();
  if (empty) aux_shapes = EmptyAuxShapes(stype, shape);
  CHECK_EQ(static_cast<int>(aux_shapes.size()), nad)
      << "NDArray: a " << StypeName(stype) << " array has " << nad << " aux arrays, given "
      << aux_shapes.size() << " aux shapes";
  TShape sshape = StorageShapeFor(stype, shape, aux_shapes);
  // An array with no element is all zeros at once: a csr's indptr is filled here.
  const bool zero_indptr = empty && stype == kCSRStorage;
  ptr_ = std::make_shared<Chunk>(stype, dtype, ctx, delay_alloc && !zero_indptr, sshape,
                                 std::move(aux_shapes), std::move(aux_types));
  if (zero_indptr) {
    TBlob indptr = aux_data(csr::kIndPtr);
    std::memset(indptr.dptr_, 0, indptr.Size() * sizeof(int64_t));
  }
}

int NDArray::storage_type() const { return ptr_ ? ptr_->stype : kUndefinedStorage; }

TShape NDArray::storage_shape() const {
  if (!ptr_ || ptr_->stype == kDefaultStorage) return shape_;
  return ptr_->storage_shape;
}

TShape NDArray::aux_shape(size_t i) const {
  CheckSparse(*this, "aux_shape");
  CHECK_LT(i, ptr_->aux_shapes.size()) << "aux_shape: index " << i << " out of range";
  return ptr_->aux_shapes[i];
}

int NDArray::aux_type(size_t i) const {
  CheckSparse(*this, "aux_type");
  CHECK_LT(i, ptr_->aux_types.size()) << "aux_type: index " << i << " out of range";
  return ptr_->aux_types[i];
}

TBlob NDArray::aux_data(size_t i) const {
  CheckSparse(*this, "aux_data");
  CHECK_LT(i, ptr_->aux_shapes.size()) << "aux_data: index " << i << " out of range";
  ptr_->AllocIfDelayed();
  return TBlob(ptr_->aux_handles[i].dptr, ptr_->aux_shapes[i], ptr_->aux_types[i], ptr_->ctx);
}

bool NDArray::storage_initialized() const {
  if (is_none() || ptr_->stype == kDefaultStorage) return false;
  const size_t idx = ptr_->stype == kRowSparseStorage ? static_cast<size_t>(rowsparse::kIdx)
                                                      : static_cast<size_t>(csr::kIdx);
  return ptr_->aux_shapes[idx].Size() != 0;
}

void NDArray::CheckAndAlloc(const std::vector<TShape>& aux_shapes) const {
  CheckSparse(*this, "CheckAndAlloc");
  CHECK_EQ(static_cast<int>(aux_shapes.size()), NumAuxData(ptr_->stype))
      << "CheckAndAlloc: expected " << NumAuxData(ptr_->stype) << " aux shapes, given "
      << aux_shapes.size();
  for (size_t i = 0; i < aux_shapes.size(); ++i) CheckAndAllocAuxData(i, aux_shapes[i]);
  CheckAndAllocData(StorageShapeFor(ptr_->stype, shape_, aux_shapes));
}

void NDArray::CheckAndAllocData(const TShape& storage_shape) const {
  CheckSparse(*this, "CheckAndAllocData");
  std::lock_guard<std::mutex> lock(ptr_->alloc_mu);
  ptr_->storage_shape = storage_shape;
  if (ptr_->delay_alloc.load()) return;  // the whole chunk is allocated at first use
  ptr_->Grow(&ptr_->shandle, storage_shape.Size() * DTypeSize(dtype_));
}

void NDArray::CheckAndAllocAuxData(size_t i, const TShape& aux_shape) const {
  CheckSparse(*this, "CheckAndAllocAuxData");
  CHECK_LT(i, ptr_->aux_shapes.size()) << "CheckAndAllocAuxData: index " << i << " out of range";
  std::lock_guard<std::mutex> lock(ptr_->alloc_mu);
  ptr_->aux_shapes[i] = aux_shape;
  if (ptr_->stype == kRowSparseStorage && i == rowsparse::kIdx) {
    ptr_->storage_shape[0] = aux_shape[0];
  }
  if (ptr_->delay_alloc.load()) return;
  ptr_->Grow(&ptr_->aux_handles[i], aux_shape.Size() * DTypeSize(ptr_->aux_types[i]));
}

void NDArray::SyncCopyFromNDArray(const NDArray& src, int i, int j) const {
  CHECK(!is_none() && !src.is_none()) << "SyncCopyFromNDArray: arrays must not be empty (none)";
  CHECK(i < 0 || src.storage_type() != kDefaultStorage)
      << "SyncCopyFromNDArray: aux array " << i << " of a dense source";
  CHECK(j < 0 || storage_type() != kDefaultStorage)
      << "SyncCopyFromNDArray: aux array " << j << " of a dense destination";
  NDArray dst = *this;
  Engine::Get()->PushSync(
      [src, dst, i, j](RunContext) {
        TBlob s = i >= 0 ? src.aux_data(i) : src.data();
        if (j >= 0) {
          dst.CheckAndAllocAuxData(j, s.shape_);
        } else if (dst.storage_type() != kDefaultStorage) {
          dst.CheckAndAllocData(s.shape_);
        } else {
          CHECK_EQ(dst.shape().Size(), s.Size())
              << "SyncCopyFromNDArray: source has " << s.Size() << " elements, destination "
              << dst.shape().Size();
        }
        TBlob d = j >= 0 ? dst.aux_data(j) : dst.data();
        CHECK_EQ(d.type_flag_, s.type_flag_)
            << "SyncCopyFromNDArray: dtypes differ, source " << DTypeName(s.type_flag_)
            << " destination " << DTypeName(d.type_flag_);
        if (s.Size()) std::memmove(d.dptr_, s.dptr_, s.Size() * DTypeSize(s.type_flag_));
      },
      ctx(), src.var() == var() ? std::vector<VarHandle>{} : std::vector<VarHandle>{src.var()},
      {var()}, FnProperty::kNormal, 0, "SyncCopyFromNDArray");
  WaitToRead();
}

void NDArray::SyncCheckFormat(bool full_check) const {
  CHECK(!is_none()) << "check_format: the array is empty (none)";
  if (storage_type() == kDefaultStorage) return;
  WaitToRead();
  const int stype = storage_type();
  const TShape shape = shape_;
  if (stype == kCSRStorage) {
    TShape ip = aux_shape(csr::kIndPtr), ix = aux_shape(csr::kIdx);
    CHECK_EQ(ip.ndim(), 1) << "check_format: csr indptr must be 1-d, given shape " << ip;
    CHECK_EQ(ip[0], shape[0] + 1) << "check_format: csr indptr must have " << shape[0] + 1
                                  << " entries (rows + 1), given " << ip[0];
    CHECK_EQ(ix.ndim(), 1) << "check_format: csr indices must be 1-d, given shape " << ix;
    CHECK_EQ(storage_shape()[0], ix[0]) << "check_format: csr data and indices lengths differ: "
                                        << storage_shape()[0] << " vs " << ix[0];
    if (!full_check) return;
    const int64_t* indptr = aux_data(csr::kIndPtr).dptr<int64_t>();
    const int64_t* idx = ix[0] ? aux_data(csr::kIdx).dptr<int64_t>() : nullptr;
    CHECK_EQ(indptr[0], 0) << "check_format: csr indptr must start at 0, given " << indptr[0];
    CHECK_EQ(indptr[shape[0]], ix[0]) << "check_format: csr indptr must end at nnz " << ix[0]
                                      << ", given " << indptr[shape[0]];
    for (dim_t r = 0; r < shape[0]; ++r) {
      CHECK_LE(indptr[r], indptr[r + 1]) << "check_format: csr indptr must be non-decreasing";
      for (int64_t k = indptr[r]; k < indptr[r + 1]; ++k) {
        CHECK(idx[k] >= 0 && idx[k] < shape[1]) << "check_format: csr column index " << idx[k]
                                                << " out of range [0, " << shape[1] << ")";
        CHECK(k == indptr[r] || idx[k - 1] < idx[k])
            << "check_format: csr column indices in row " << r << " must be sorted and unique";
      }
    }
  } else {
    TShape ix = aux_shape(rowsparse::kIdx);
    CHECK_EQ(ix.ndim(), 1) << "check_format: row_sparse indices must be 1-d, given shape " << ix;
    CHECK_EQ(storage_shape()[0], ix[0]) << "check_format: row_sparse data rows and indices "
                                        << "differ: " << storage_shape()[0] << " vs " << ix[0];
    if (!full_check || ix[0] == 0) return;
    const int64_t* idx = aux_data(rowsparse::kIdx).dptr<int64_t>();
    for (dim_t k = 0; k < ix[0]; ++k) {
      CHECK(idx[k] >= 0 && idx[k] < shape[0]) << "check_format: row_sparse index " << idx[k]
                                              << " out of range [0, " << shape[0] << ")";
      CHECK(k == 0 || idx[k - 1] < idx[k])
          << "check_format: row_sparse indices must be sorted and unique";
    }
  }
}

NDArray NDArray::aux_ndarray(size_t i) const {
  CheckSparse(*this, "aux_ndarray");
  WaitToRead();
  NDArray ret(aux_shape(i), ctx(), false, aux_type(i));
  ret.SyncCopyFromNDArray(*this, static_cast<int>(i), -1);
  return ret;
}

NDArray NDArray::data_ndarray() const {
  CheckSparse(*this, "data_ndarray");
  WaitToRead();
  NDArray ret(storage_shape(), ctx(), false, dtype_);
  ret.SyncCopyFromNDArray(*this, -1, -1);
  return ret;
}

void CastStorageSync(const NDArray& src, const NDArray& dst) {
  const int from = src.storage_type(), to = dst.storage_type();
  CHECK_EQ(src.shape(), dst.shape()) << "cast_storage: shapes differ, " << src.shape() << " vs "
                                     << dst.shape();
  CHECK_EQ(src.dtype(), dst.dtype()) << "cast_storage: dtypes differ";
  CHECK(src.ctx().dev_mask() == Context::kCPU && dst.ctx().dev_mask() == Context::kCPU)
      << "cast_storage: sparse arrays on " << src.ctx() << " need a CUDA build";
  if (from == to) {
    if (from != kDefaultStorage) return CopySparse(src, dst);
    TBlob s = src.data(), d = dst.data();
    if (s.Size() && s.dptr_ != d.dptr_) std::memmove(d.dptr_, s.dptr_, s.Size() * DTypeSize(s.type_flag_));
    return;
  }
  if (from == kDefaultStorage && to == kRowSparseStorage) return DenseToRowSparse(src.data(), dst);
  if (from == kDefaultStorage && to == kCSRStorage) return DenseToCSR(src.data(), dst);
  if (to == kDefaultStorage) return SparseToDense(src, dst.data());
  LOG(FATAL) << "cast_storage: conversion from " << StypeName(from) << " to " << StypeName(to)
             << " is not supported (convert through 'default')";
}

NDArray CastStorage(const NDArray& src, int stype) {
  if (src.storage_type() == stype) return src;
  NDArray dst = stype == kDefaultStorage
                    ? NDArray(src.shape(), src.ctx(), true, src.dtype())
                    : NDArray(static_cast<NDArrayStorageType>(stype), src.shape(), src.ctx(),
                              true, src.dtype());
  Engine::Get()->PushSync([src, dst](RunContext) { CastStorageSync(src, dst); }, src.ctx(),
                          {src.var()}, {dst.var()}, FnProperty::kNormal, 0, "cast_storage");
  return dst;
}

}  // namespace mxnet
