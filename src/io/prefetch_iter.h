// PrefetchingDataIter: a background thread fills a bounded queue of host batches from a
// BatchSource; the caller's thread turns them into NDArrays of the output dtype.
#ifndef MXNET_IO_PREFETCH_ITER_H_
#define MXNET_IO_PREFETCH_ITER_H_

#include <dmlc/optional.h>
#include <dmlc/parameter.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/iter_registry.h"

namespace mxnet {
namespace io {

/*! \brief Arguments every iterator takes for its prefetcher (as in MXNet 1.9.1). */
struct PrefetchParam : public dmlc::Parameter<PrefetchParam> {
  size_t prefetch_buffer;
  int ctx;
  dmlc::optional<int> dtype;
  DMLC_DECLARE_PARAMETER(PrefetchParam) {
    DMLC_DECLARE_FIELD(prefetch_buffer).set_default(4).describe(
        "Maximum number of batches to prefetch.");
    DMLC_DECLARE_FIELD(ctx).set_default(1).add_enum("cpu", 0).add_enum("gpu", 1).describe(
        "Context data loader optimized for.");
    DMLC_DECLARE_FIELD(dtype)
        .add_enum("float32", kFloat32).add_enum("float64", kFloat64)
        .add_enum("float16", kFloat16).add_enum("bfloat16", 12).add_enum("int64", kInt64)
        .add_enum("int32", kInt32).add_enum("uint8", kUint8).add_enum("int8", kInt8)
        .set_default(dmlc::optional<int>())
        .describe("Output data type. ``None`` means no change.");
  }
};

/*! \brief The name PrefetchParam's dtype argument gives a dtype code. */
inline const char* DTypeArgName(int dtype) {
  switch (dtype) {
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    case kFloat16: return "float16";
    case kUint8: return "uint8";
    case kInt8: return "int8";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case 12: return "bfloat16";
    default: return "unknown";
  }
}

class PrefetchingDataIter : public DataIter {
 public:
  /*! \brief Starts the worker thread; out_dtype is the dtype of data and label batches. */
  PrefetchingDataIter(std::unique_ptr<BatchSource> source, size_t capacity, int out_dtype);
  ~PrefetchingDataIter() override;

  void BeforeFirst() override;
  bool Next() override;
  const NDArray& Data() const override { return data_; }
  const NDArray& Label() const override { return label_; }
  const std::vector<uint64_t>& Index() const override { return index_; }
  int Pad() const override { return pad_; }

 private:
  void WorkerLoop();

  std::unique_ptr<BatchSource> source_;
  size_t capacity_;
  int dtype_;
  TShape data_shape_, label_shape_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<HostBatch> queue_;
  std::vector<HostBatch> spare_;  // handed-out batches whose buffers the worker reuses
  uint64_t epoch_ = 0;          // bumped by BeforeFirst; the worker restarts the source
  uint64_t worker_epoch_ = 0;   // the epoch the worker's source position belongs to
  bool epoch_done_ = false;     // the worker reached the end of worker_epoch_
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread worker_;

  NDArray data_, label_;
  std::vector<uint64_t> index_;
  int pad_ = 0;
};

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_PREFETCH_ITER_H_
