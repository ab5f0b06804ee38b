// Row-sparse keys of the distributed store. A key whose parts are whole rows (every
// row_sparse-initialized key, and a dense one whose parts happen to be) moves row_sparse
// gradients and row_sparse_pull rows as rows only: a kPush or kPull flagged kFlagRowSparse
// carries in its body the ids (int64, sorted, unique, counted from the part's first row)
// of the rows its payload holds or asks for. Servers keep every part dense, shaped
// (rows of the part,) + the key's shape[1:] (the shape sent in the body of the init push).
#ifndef MXNET_KVSTORE_DIST_ROW_SPARSE_H_
#define MXNET_KVSTORE_DIST_ROW_SPARSE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kvstore/dist/customer.h"
#include "kvstore/dist/kvstore_dist.h"
#include "mxnet/ndarray.h"

namespace mxnet {
namespace kvstore {
namespace dist {

/*! \brief As MXNet 1.9.1 places a row_sparse key (its EncodeRowSparseKey): a key of fewer
 *  than bigarray_bound elements goes whole to server (key * 9973) % num_servers; a bigger
 *  one gives server i the rows [round(rows / S * i), round(rows / S * (i + 1))). Parts are
 *  whole rows (row_len set); no 2-bit parts (1.9.1 does not compress row_sparse keys). */
KeyLayout MakeRowSparseKeyLayout(int key, int64_t rows, int64_t row_len, int num_servers,
                                 int64_t bigarray_bound);

/*! \brief Elements per row of shape: the size of shape[1:] (1 for a 1-D key; 0 without
 *  rows). */
int64_t RowLength(const TShape& shape);

/*! \brief RowLength(shape) when every part of layout starts and ends on a row, else 0. */
int64_t RowAlignment(const KeyLayout& layout, const TShape& shape);

/*! \brief The shape a server gives part p of a key of `shape` laid out by layout: its rows
 *  and shape[1:] when the layout is row-aligned, else (elements,). */
TShape PartShape(const KeyLayout& layout, const TShape& shape, size_t p);

/*! \brief int64 values as message body bytes, and back. DecodeRowIds checks that the body
 *  holds sorted, unique ids in [0, num_rows) and returns "" or what is wrong. */
std::string EncodeInt64s(const int64_t* values, size_t n);
std::string DecodeRowIds(const std::string& body, int64_t num_rows, std::vector<int64_t>* ids);
/*! \brief A part shape from an init push's body; (num_elems,) for an empty body. Throws
 *  dmlc::Error when the body is malformed or does not hold num_elems elements. */
TShape DecodePartShape(const std::string& body, int64_t num_elems);

// Server side: arrays are dense CPU arrays of a part's shape (waited for by the caller).
/*! \brief dense[ids[i]] += rows[i] (rows: ids.size() rows of dense's dtype). */
void AddRows(const NDArray& dense, const std::vector<int64_t>& ids, const void* rows);
/*! \brief Set the rows ids of dense to zero. */
void ZeroRows(const NDArray& dense, const std::vector<int64_t>& ids);
/*! \brief A new row_sparse array of dense's shape holding its rows ids. */
NDArray GatherRowSparse(const NDArray& dense, const std::vector<int64_t>& ids);
/*! \brief A new row_sparse array of shape and dtype holding rows (ids.size() rows). */
NDArray MakeRowSparse(const TShape& shape, int dtype, const std::vector<int64_t>& ids,
                      const void* rows);
/*! \brief The rows ids of dense, concatenated, as dtype (converted when it is not dense's:
 *  a row_sparse_pull into an output of another dtype). */
std::shared_ptr<std::string> CopyRows(const NDArray& dense, const std::vector<int64_t>& ids,
                                      int dtype);

// Worker side: engine operations completed by the servers' replies.
struct ServerLink {
  PostOffice* po;
  std::shared_ptr<Customer> customer;
  std::shared_ptr<PrioritySender> sender;  // dist_p3 only
};

/*! \brief Push the rows of a CPU row_sparse array to the parts of a row-aligned key (every
 *  part gets a message, with no row when it has none: a sync round counts each worker).
 *  Ordered after earlier operations on push_var (written). */
void PushRowSparseToServers(const ServerLink& link, int key, const KeyLayout& layout,
                            const NDArray& rsp, VarHandle push_var, int priority);

/*! \brief Fill the CPU row_sparse array out with the rows row_ids (a CPU array of any dtype
 *  and shape; repeats allowed) of a row-aligned key: out holds them sorted and unique. Reads
 *  push_var, so it follows this worker's earlier push of the key. */
void PullRowSparseFromServers(const ServerLink& link, int key, const KeyLayout& layout,
                              const NDArray& row_ids, const NDArray& out, VarHandle push_var,
                              int priority);

}  // namespace dist
}  // namespace kvstore
}  // namespace mxnet

#endif  // MXNET_KVSTORE_DIST_ROW_SPARSE_H_
