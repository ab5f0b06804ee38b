// Data iterators: the interface the C API drives, the host-side batch a loader fills, and the
// registry (DataIteratorReg) through which iterators are created by name.
#ifndef MXNET_IO_ITER_REGISTRY_H_
#define MXNET_IO_ITER_REGISTRY_H_

#include <dmlc/parameter.h>
#include <dmlc/registry.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "mxnet/ndarray.h"

namespace mxnet {
namespace io {

using IterKwargs = std::vector<std::pair<std::string, std::string>>;

/*! \brief What the C API sees of an iterator: an epoch of batches with data, label,
 *  example indices and the number of padding examples at the end of the batch. */
class DataIter {
 public:
  virtual ~DataIter() = default;
  virtual void BeforeFirst() = 0;
  /*! \brief Move to the next batch; false at the end of the epoch. */
  virtual bool Next() = 0;
  virtual const NDArray& Data() const = 0;
  virtual const NDArray& Label() const = 0;
  virtual const std::vector<uint64_t>& Index() const = 0;
  virtual int Pad() const = 0;
};

/*! \brief One batch in host memory, values as double (exact for every supported dtype's
 *  range of file values); converted to the output dtype when handed out. */
struct HostBatch {
  std::vector<double> data;
  std::vector<double> label;
  std::vector<uint64_t> index;
  int pad = 0;
};

/*! \brief Produces host batches; runs on the prefetcher's worker thread only. */
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  virtual void BeforeFirst() = 0;
  virtual bool Next(HostBatch* out) = 0;
  /*! \brief Shapes of a whole batch's data and label arrays. */
  virtual TShape DataShape() const = 0;
  virtual TShape LabelShape() const = 0;
};

using DataIterFactory = std::function<DataIter*(const IterKwargs&)>;

struct DataIteratorReg
    : public dmlc::FunctionRegEntryBase<DataIteratorReg, DataIterFactory> {};

/*! \brief Parse kwargs into each parameter struct in turn. Keys none of them knows are
 *  ignored, as MXNet 1.9.1 does (Python passes data_name/label_name through). */
template <typename... Params>
void ParseIterArgs(const IterKwargs& kwargs, Params*... params) {
  (params->InitAllowUnknown(kwargs), ...);
}

}  // namespace io
}  // namespace mxnet

#define MXNET_REGISTER_IO_ITER(name)                                        \
  DMLC_REGISTRY_REGISTER(::mxnet::io::DataIteratorReg, DataIteratorReg, name)

#endif  // MXNET_IO_ITER_REGISTRY_H_
