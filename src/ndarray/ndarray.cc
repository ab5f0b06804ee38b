// NDArray: chunk lifetime, views, synchronous host copies and cross-device copies.
#include "mxnet/ndarray.h"

#include <dmlc/logging.h>

#include <cstring>
#include <type_traits>

#include "common/type_switch.h"
#include "ndarray/ndarray_chunk.h"

namespace mxnet {
namespace {

// Views and host copies address dense memory; a sparse array goes through CastStorage.
void CheckDense(const NDArray& a, const char* what) {
  CHECK_EQ(a.storage_type(), kDefaultStorage)
      << what << ": not supported for sparse arrays (storage type " << a.storage_type()
      << "); convert with tostype('default') first";
}

}  // namespace

NDArray::NDArray(const TShape& shape, Context ctx, bool delay_alloc, int dtype)
    : shape_(shape), dtype_(dtype) {
  CHECK(IsValidDType(dtype)) << "NDArray: dtype " << dtype << " is not a supported type";
  CHECK(shape.IsKnown()) << "NDArray: shape " << shape << " must be fully known";
  size_t bytes = 0;
  CHECK(!__builtin_mul_overflow(shape.Size(), DTypeSize(dtype), &bytes))
      << "NDArray: shape " << shape << " of " << DTypeName(dtype)
      << " is too large: its size in bytes does not fit in 64 bits";
  ptr_ = std::make_shared<Chunk>(bytes, ctx, delay_alloc);
}

NDArray NDArray::FromExternal(const TBlob& data, std::shared_ptr<void> keeper) {
  auto chunk = std::make_shared<Chunk>(data.dptr_, data.Size() * DTypeSize(data.type_flag_),
                                       data.ctx, std::move(keeper));
  return NDArray(std::move(chunk), data.shape_, data.type_flag_, 0);
}

Context NDArray::ctx() const {
  CHECK(ptr_) << "NDArray: the array is empty (none)";
  return ptr_->ctx;
}

VarHandle NDArray::var() const {
  CHECK(ptr_) << "NDArray: the array is empty (none)";
  return ptr_->var;
}

void NDArray::CheckAndAlloc() const {
  CHECK(ptr_) << "NDArray: the array is empty (none)";
  ptr_->AllocIfDelayed();
}

TBlob NDArray::data() const {
  CheckAndAlloc();
  char* base = static_cast<char*>(ptr_->shandle.dptr);
  if (ptr_->stype != kDefaultStorage) return TBlob(base, ptr_->storage_shape, dtype_, ptr_->ctx);
  return TBlob(base ? base + byte_offset_ : nullptr, shape_, dtype_, ptr_->ctx);
}

bool NDArray::IsView() const {
  if (!ptr_ || ptr_->stype != kDefaultStorage) return false;
  return byte_offset_ != 0 || shape_.Size() * DTypeSize(dtype_) != ptr_->bytes;
}

NDArray NDArray::Slice(dim_t begin, dim_t end) const {
  CHECK(!is_none()) << "slice: the array is empty (none)";
  CheckDense(*this, "slice");
  CHECK_GE(shape_.ndim(), 1) << "slice: cannot slice a 0-d array";
  CHECK(0 <= begin && begin <= end && end <= shape_[0])
      << "slice: expected 0 <= begin <= end <= " << shape_[0] << ", given begin=" << begin
      << " end=" << end;
  TShape s = shape_;
  s[0] = end - begin;
  size_t row = shape_.ProdShape(1, shape_.ndim()) * DTypeSize(dtype_);
  NDArray ret(ptr_, s, dtype_, byte_offset_ + row * begin);
  return ret;
}

NDArray NDArray::At(dim_t idx) const {
  CHECK(!is_none()) << "at: the array is empty (none)";
  CheckDense(*this, "at");
  CHECK_GE(shape_.ndim(), 1) << "at: cannot index a 0-d array";
  CHECK(idx >= 0 && idx < shape_[0])
      << "at: index " << idx << " is out of bounds for axis 0 with size " << shape_[0];
  NDArray row = Slice(idx, idx + 1);
  TShape s(shape_.begin() + 1, shape_.end());
  row.shape_ = s;
  return row;
}

NDArray NDArray::Reshape(const TShape& shape) const {
  CHECK(!is_none()) << "reshape: the array is empty (none)";
  CheckDense(*this, "reshape");
  CHECK_EQ(shape.Size(), shape_.Size())
      << "reshape: cannot reshape array of shape " << shape_ << " into shape " << shape;
  NDArray ret(ptr_, shape, dtype_, byte_offset_);
  return ret;
}

NDArray NDArray::AsArray(const TShape& shape, int dtype) const {
  CHECK(!is_none()) << "as_array: the array is empty (none)";
  CheckDense(*this, "as_array");
  CHECK_LE(shape.Size() * DTypeSize(dtype), shape_.Size() * DTypeSize(dtype_))
      << "as_array: new shape " << shape << " does not fit in the array of shape " << shape_;
  return NDArray(ptr_, shape, dtype, byte_offset_);
}

void NDArray::WaitToRead() const {
  if (is_none()) return;
  Engine::Get()->WaitForVar(ptr_->var);
}

void NDArray::WaitToWrite() const {
  if (is_none()) return;
  // A no-op write makes every earlier read finish before we return. On the CPU it is a small
  // op: when nothing uses the array (a new one being filled) it completes in this thread
  // instead of queuing behind every operation pushed so far.
  const FnProperty prop =
      ptr_->ctx.dev_mask() == Context::kCPU ? FnProperty::kCPUSmall : FnProperty::kNormal;
  Engine::Get()->PushAsync([](RunContext, CallbackOnComplete on_complete) { on_complete(); },
                           ptr_->ctx, {}, {ptr_->var}, prop, 0, "WaitToWrite");
  Engine::Get()->WaitForVar(ptr_->var);
}

void NDArray::SyncCopyFromCPU(const void* data, size_t size) const {
  CHECK(!is_none()) << "SyncCopyFromCPU: the array is empty (none)";
  CheckDense(*this, "SyncCopyFromCPU");
  CHECK_EQ(size, shape_.Size()) << "SyncCopyFromCPU: array has " << shape_.Size()
                                << " elements, source has " << size;
  if (size == 0) return;
  WaitToWrite();
  TBlob dst = this->data();
  CHECK_EQ(dst.ctx.dev_mask(), Context::kCPU) << "SyncCopyFromCPU: gpu arrays need CUDA";
  std::memcpy(dst.dptr_, data, size * DTypeSize(dtype_));
}

void NDArray::SyncCopyToCPU(void* data, size_t size) const {
  CHECK(!is_none()) << "SyncCopyToCPU: the array is empty (none)";
  CheckDense(*this, "SyncCopyToCPU");
  CHECK_EQ(size, shape_.Size()) << "SyncCopyToCPU: array has " << shape_.Size()
                                << " elements, destination has " << size;
  WaitToRead();
  if (size == 0) return;
  TBlob src = this->data();
  CHECK_EQ(src.ctx.dev_mask(), Context::kCPU) << "SyncCopyToCPU: gpu arrays need CUDA";
  std::memcpy(data, src.dptr_, size * DTypeSize(dtype_));
}

NDArray NDArray::Copy(Context ctx) const {
  if (storage_type() != kDefaultStorage) {
    std::vector<int> aux_types;
    for (int i = 0; i < NumAuxData(storage_type()); ++i) aux_types.push_back(aux_type(i));
    NDArray ret(static_cast<NDArrayStorageType>(storage_type()), shape_, ctx, true, dtype_,
                aux_types);
    CopyFromTo(*this, ret);
    return ret;
  }
  NDArray ret(shape_, ctx, true, dtype_);
  CopyFromTo(*this, ret);
  return ret;
}

void CopyFromTo(const NDArray& from, const NDArray& to, int priority) {
  CHECK(!from.is_none() && !to.is_none()) << "copyto: source and destination must not be none";
  CHECK_EQ(from.shape(), to.shape()) << "copyto: shape mismatch, source " << from.shape()
                                     << " destination " << to.shape();
  if (from.chunk_id() == to.chunk_id() && from.byte_offset() == to.byte_offset()) return;
  Context a = from.ctx(), b = to.ctx();
  CHECK(a.dev_mask() == Context::kCPU && b.dev_mask() == Context::kCPU)
      << "copyto: copies from " << a << " to " << b << " need a CUDA build";
  std::vector<VarHandle> reads;
  if (from.var() != to.var()) reads.push_back(from.var());
  if (from.storage_type() != kDefaultStorage || to.storage_type() != kDefaultStorage) {
    CHECK_EQ(from.dtype(), to.dtype()) << "copyto: sparse arrays copy between equal dtypes only, "
                                       << "given " << DTypeName(from.dtype()) << " and "
                                       << DTypeName(to.dtype());
    Engine::Get()->PushSync([from, to](RunContext) { CastStorageSync(from, to); }, b, reads,
                            {to.var()}, FnProperty::kNormal, priority, "CopyCPU2CPU");
    return;
  }
  Engine::Get()->PushSync(
      [from, to](RunContext) {
        TBlob s = from.data(), d = to.data();
        if (s.Size() == 0) return;
        if (s.type_flag_ == d.type_flag_) {
          std::memmove(d.dptr_, s.dptr_, s.Size() * DTypeSize(s.type_flag_));
          return;
        }
        // Copies between dtypes convert element by element, as MXNet's CopyFromTo does.
        MXNET_TYPE_SWITCH(s.type_flag_, SType, {
          MXNET_TYPE_SWITCH(d.type_flag_, DType, {
            const SType* src = s.dptr<SType>();
            DType* dst = d.dptr<DType>();
            for (size_t i = 0, n = s.Size(); i < n; ++i) {
              if constexpr (std::is_same<SType, half_t>::value || std::is_same<DType, half_t>::value) {
                dst[i] = static_cast<DType>(static_cast<float>(src[i]));
              } else {
                dst[i] = static_cast<DType>(src[i]);
              }
            }
          });
        });
      },
      b, reads, {to.var()}, FnProperty::kNormal, priority, "CopyCPU2CPU");
}

}  // namespace mxnet
