// NDArray: a shape, dtype and offset over a shared, engine-tracked chunk of device memory.
#ifndef MXNET_NDARRAY_H_
#define MXNET_NDARRAY_H_

#include <memory>
#include <string>
#include <vector>

#include "mxnet/base.h"
#include "mxnet/engine.h"
#include "mxnet/storage.h"
#include "mxnet/tensor_blob.h"
#include "nnvm/node.h"

namespace mxnet {

/*! \brief Storage type of an array (MXNet's codes). */
enum NDArrayStorageType {
  kUndefinedStorage = -1,
  kDefaultStorage = 0,    // dense
  kRowSparseStorage = 1,  // aux: indices (int64) of the stored rows; data (nnz_rows, shape[1:])
  kCSRStorage = 2,        // aux: indptr (rows + 1), indices (nnz) of the columns; data (nnz,)
};
namespace rowsparse {
enum RowSparseAuxType { kIdx = 0 };
}
namespace csr {
enum CSRAuxType { kIndPtr = 0, kIdx = 1 };
}
/*! \brief Number of aux arrays of a storage type (0 for dense). */
inline int NumAuxData(int stype) {
  return stype == kRowSparseStorage ? 1 : stype == kCSRStorage ? 2 : 0;
}

class NDArray {
 public:
  /*! \brief A "none" array (no chunk, unknown shape). */
  NDArray() = default;
  /*! \brief A new array; memory is taken from the pool at once unless delay_alloc. */
  NDArray(const TShape& shape, Context ctx, bool delay_alloc = false, int dtype = kFloat32);
  /*! \brief An array over memory owned elsewhere (no copy). keeper is released once the
   *  array and every operation using it are done (e.g. to return a DLPack tensor). */
  static NDArray FromExternal(const TBlob& data, std::shared_ptr<void> keeper);
  /*! \brief A sparse array (row_sparse or csr) of logical shape `shape`. Without aux_shapes
   *  it holds no element (all zeros; a csr gets its indptr of zeros); otherwise data and aux
   *  arrays of those shapes are allocated, at once unless delay_alloc. aux_types default to
   *  int64. Defined in ndarray_sparse.cc. */
  NDArray(NDArrayStorageType stype, const TShape& shape, Context ctx, bool delay_alloc = true,
          int dtype = kFloat32, std::vector<int> aux_types = {},
          std::vector<TShape> aux_shapes = {});

  bool is_none() const { return ptr_ == nullptr; }
  const TShape& shape() const { return shape_; }
  int dtype() const { return dtype_; }
  Context ctx() const;
  int storage_type() const;
  size_t byte_offset() const { return byte_offset_; }
  VarHandle var() const;
  /*! \brief Ensure memory exists (allocates a delayed chunk). */
  void CheckAndAlloc() const;
  /*! \brief The memory as a TBlob; allocates a delayed chunk first. Not synchronized. */
  TBlob data() const;

  // Sparse storage (ndarray_sparse.cc). data() of a sparse array is its stored values, of
  // shape storage_shape(). Aux shapes change when a kernel writes the array, so a kernel
  // reads them only inside the engine operation that orders it.
  /*! \brief Shape of the stored values (shape() for dense arrays). */
  TShape storage_shape() const;
  TShape aux_shape(size_t i) const;
  int aux_type(size_t i) const;
  /*! \brief Aux array i as a TBlob (not synchronized). */
  TBlob aux_data(size_t i) const;
  /*! \brief A sparse array holds at least one stored row (row_sparse) or value (csr). */
  bool storage_initialized() const;
  /*! \brief (Re)allocate a sparse array's aux arrays and values for these aux shapes; the
   *  values' shape follows (rows of the row_sparse indices, or the csr indices' length).
   *  Memory already large enough is kept. Call inside the engine operation writing it. */
  void CheckAndAlloc(const std::vector<TShape>& aux_shapes) const;
  void CheckAndAllocData(const TShape& storage_shape) const;
  void CheckAndAllocAuxData(size_t i, const TShape& aux_shape) const;
  /*! \brief Blocking copy of src's values (src.data(), or its aux array i when i >= 0) into
   *  this array's values (or its aux array j when j >= 0), as MXNet's SyncCopyFromNDArray;
   *  a sparse destination takes the source's shape for that part. */
  void SyncCopyFromNDArray(const NDArray& src, int i = -1, int j = -1) const;
  /*! \brief Check a sparse array's indices (sorted, in range, indptr consistent); throws
   *  dmlc::Error naming the problem. full_check also checks every index. */
  void SyncCheckFormat(bool full_check) const;
  /*! \brief Dense copies of aux array i / of the stored values. */
  NDArray aux_ndarray(size_t i) const;
  NDArray data_ndarray() const;

  /*! \brief True when another NDArray may see the same chunk with a different view. */
  bool IsView() const;
  /*! \brief Identity of the underlying chunk (two arrays share memory iff equal). */
  const void* chunk_id() const { return ptr_.get(); }

  // Views sharing memory with this array.
  NDArray Slice(dim_t begin, dim_t end) const;  // along axis 0
  NDArray At(dim_t idx) const;                   // drops axis 0
  NDArray Reshape(const TShape& shape) const;    // same size
  NDArray AsArray(const TShape& shape, int dtype) const;  // same or smaller byte size
  /*! \brief The same array with the autograd entry dropped (a plain value). */
  NDArray Detach() const {
    NDArray ret(*this);
    ret.entry_ = nnvm::NodeEntry();
    return ret;
  }

  void WaitToRead() const;
  void WaitToWrite() const;
  /*! \brief Copy size elements from host memory into this array (blocking). */
  void SyncCopyFromCPU(const void* data, size_t size) const;
  /*! \brief Copy this array into host memory of size elements (blocking). */
  void SyncCopyToCPU(void* data, size_t size) const;
  /*! \brief An asynchronous copy to another context. */
  NDArray Copy(Context ctx) const;

  /*! \brief Autograd: the graph entry that produced this array (empty when not recorded). */
  const nnvm::NodeEntry& entry() const { return entry_; }
  void set_entry(nnvm::NodeEntry e) { entry_ = std::move(e); }
  /*! \brief Shape to use for this array's metadata only (no data change): used by Reshape. */
  void set_shape(const TShape& s) { shape_ = s; }

 private:
  struct Chunk;
  NDArray(std::shared_ptr<Chunk> ptr, const TShape& shape, int dtype, size_t offset)
      : ptr_(std::move(ptr)), shape_(shape), dtype_(dtype), byte_offset_(offset) {}

  std::shared_ptr<Chunk> ptr_;
  TShape shape_;
  int dtype_{kFloat32};
  size_t byte_offset_{0};
  nnvm::NodeEntry entry_;
};

/*! \brief Push an asynchronous copy from one array into another of equal size and dtype
 *  (possibly across devices). */
void CopyFromTo(const NDArray& from, const NDArray& to, int priority = 0);
/*! \brief Convert src into dst's storage type (any of dense, row_sparse, csr; same shape and
 *  dtype), writing dst's values and aux arrays. Runs in the calling thread on memory the
 *  caller's engine operation orders (a kernel's inputs and outputs). */
void CastStorageSync(const NDArray& src, const NDArray& dst);
/*! \brief src converted to storage type stype: a new array written by a queued operation
 *  (src itself when it already has that type). */
NDArray CastStorage(const NDArray& src, int stype);

}  // namespace mxnet

#endif  // MXNET_NDARRAY_H_

namespace mxnet {

/*!
 * \brief Write arrays (with names, or none for a list) in MXNet's .params/.nd format.
 *  np_shape (a NumpyShape value) picks the record version as MXNet does: V3 when on, else V2.
 */
void SaveNDArrayFile(const std::string& fname, const std::vector<NDArray>& arrays,
                     const std::vector<std::string>& names, int np_shape);
/*!
 * \brief Read a .params/.nd file; throws dmlc::Error naming the file when it is missing,
 *  truncated or corrupt, or when its records do not match np_shape (V3 records need it on,
 *  older ones need it off or globally on, as in MXNet).
 */
void LoadNDArrayFile(const std::string& fname, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names, int np_shape);
std::string SaveNDArrayBuffer(const std::vector<NDArray>& arrays,
                              const std::vector<std::string>& names, int np_shape);
void LoadNDArrayBuffer(const char* data, size_t size, std::vector<NDArray>* arrays,
                       std::vector<std::string>* names, int np_shape);

}  // namespace mxnet
