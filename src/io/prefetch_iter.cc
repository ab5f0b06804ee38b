// PrefetchingDataIter: worker thread and hand-over (see prefetch_iter.h).
#include "io/prefetch_iter.h"

#include <algorithm>
#include <utility>

#include "mxnet/half.h"

namespace mxnet {
namespace io {

DMLC_REGISTER_PARAMETER(PrefetchParam);

namespace {

template <typename T>
NDArray FromValues(const std::vector<double>& v, const TShape& shape, int dtype) {
  // converted straight into the new array's memory (no engine op can be pending on it)
  NDArray out(shape, Context::CPU(), false, dtype);
  T* dst = static_cast<T*>(out.data().dptr_);
  for (size_t i = 0; i < v.size(); ++i) dst[i] = static_cast<T>(v[i]);
  return out;
}

NDArray ToNDArray(const std::vector<double>& v, const TShape& shape, int dtype) {
  switch (dtype) {
    case kFloat32: return FromValues<float>(v, shape, dtype);
    case kFloat64: return FromValues<double>(v, shape, dtype);
    case kFloat16: return FromValues<half_t>(v, shape, dtype);
    case kUint8: return FromValues<uint8_t>(v, shape, dtype);
    case kInt8: return FromValues<int8_t>(v, shape, dtype);
    case kInt32: return FromValues<int32_t>(v, shape, dtype);
    case kInt64: return FromValues<int64_t>(v, shape, dtype);
    default: LOG(FATAL) << "data iterator: output dtype " << DTypeArgName(dtype)
                        << " is not supported";
  }
  return NDArray();
}

}  // namespace

PrefetchingDataIter::PrefetchingDataIter(std::unique_ptr<BatchSource> source, size_t capacity,
                                         int out_dtype)
    : source_(std::move(source)), capacity_(std::max<size_t>(capacity, 1)), dtype_(out_dtype) {
  data_shape_ = source_->DataShape();
  label_shape_ = source_->LabelShape();
  worker_ = std::thread([this] { WorkerLoop(); });
}

PrefetchingDataIter::~PrefetchingDataIter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void PrefetchingDataIter::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] {
      return stop_ || worker_epoch_ != epoch_ ||
             (!epoch_done_ && !error_ && queue_.size() < capacity_);
    });
    if (stop_) return;
    uint64_t epoch = epoch_;
    bool restart = worker_epoch_ != epoch;
    // a handed-out batch's buffers, so that large batches are not allocated (and page-faulted
    // in) again each time; the source overwrites every field
    HostBatch batch;
    if (!spare_.empty()) {
      batch = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    // The source is touched by this thread only, outside the lock.
    bool have = false;
    std::exception_ptr err;
    try {
      if (restart) source_->BeforeFirst();
      have = source_->Next(&batch);
    } catch (...) {
      err = std::current_exception();
    }
    lock.lock();
    if (restart) {
      worker_epoch_ = epoch;
      epoch_done_ = false;
    }
    if (epoch_ != worker_epoch_) continue;  // reset while producing: the batch is stale
    if (err) {
      error_ = err;
    } else if (have) {
      queue_.push_back(std::move(batch));
    } else {
      epoch_done_ = true;
    }
    cv_.notify_all();
  }
}

void PrefetchingDataIter::BeforeFirst() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++epoch_;
    queue_.clear();
    epoch_done_ = false;
    error_ = nullptr;
  }
  cv_.notify_all();
}

bool PrefetchingDataIter::Next() {
  HostBatch batch;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] {
      return worker_epoch_ == epoch_ && (!queue_.empty() || epoch_done_ || error_);
    });
    if (queue_.empty()) {
      if (error_) {
        std::exception_ptr err = error_;
        error_ = nullptr;
        epoch_done_ = true;  // a failed epoch ends; BeforeFirst starts a new one
        std::rethrow_exception(err);
      }
      return false;
    }
    batch = std::move(queue_.front());
    queue_.pop_front();
  }
  cv_.notify_all();
  data_ = ToNDArray(batch.data, data_shape_, dtype_);
  label_ = ToNDArray(batch.label, label_shape_, dtype_);
  index_ = batch.index;
  pad_ = batch.pad;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.size() < 2) spare_.push_back(std::move(batch));
  }
  return true;
}

}  // namespace io
}  // namespace mxnet
