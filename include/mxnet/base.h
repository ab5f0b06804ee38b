// Core value types shared by every layer: device context, dtypes, shapes, run context.
#ifndef MXNET_BASE_H_
#define MXNET_BASE_H_

#include <dmlc/logging.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <type_traits>
#include <vector>

#define MXNET_MAJOR 1
#define MXNET_MINOR 9
#define MXNET_PATCH 1
#define MXNET_VERSION (MXNET_MAJOR * 10000 + MXNET_MINOR * 100 + MXNET_PATCH)

namespace mxnet {

using index_t = int64_t;
using dim_t = int64_t;

/*! \brief A device and its ordinal; values match MXNet 1.x's Context::DeviceType. */
struct Context {
  enum DeviceType : int32_t { kCPU = 1, kGPU = 2, kCPUPinned = 3, kCPUShared = 5 };
  DeviceType dev_type{kCPU};
  int32_t dev_id{0};

  Context() = default;
  Context(DeviceType type, int32_t id) : dev_type(type), dev_id(id) {}
  static Context CPU(int32_t id = 0) { return {kCPU, id}; }
  static Context GPU(int32_t id = 0) { return {kGPU, id}; }
  static Context CPUPinned(int32_t id = 0) { return {kCPUPinned, id}; }
  /*! \brief Device type that actually executes work (pinned/shared memory runs on the CPU). */
  DeviceType dev_mask() const { return dev_type == kGPU ? kGPU : kCPU; }
  bool operator==(const Context& o) const { return dev_type == o.dev_type && dev_id == o.dev_id; }
  bool operator!=(const Context& o) const { return !(*this == o); }
  bool operator<(const Context& o) const {
    return dev_type != o.dev_type ? dev_type < o.dev_type : dev_id < o.dev_id;
  }
  std::string DeviceName() const;  // "cpu", "gpu", "cpu_pinned", "cpu_shared"
};
std::ostream& operator<<(std::ostream& os, const Context& ctx);

/*! \brief Element types; numeric values match mshadow's TypeFlag so files and C callers agree. */
enum TypeFlag : int {
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
};
/*! \brief One row of the dtype table (src/common/base.cc): the one place dtype names, flags,
 *  numpy names and sizes are written; the C API, the operators and Python all read it. */
struct DTypeInfo {
  int flag;
  const char* name;        // MXNet's name (the dtype argument of operators)
  const char* numpy_name;  // numpy.dtype(numpy_name)
  size_t size;             // bytes per element
};
/*! \brief Every dtype, in flag order. */
const std::vector<DTypeInfo>& DTypeTable();
const char* DTypeName(int dtype);  // "float32", ...; "unknown" otherwise
int DTypeFromName(const std::string& name);  // -1 when unknown
size_t DTypeSize(int dtype);  // 0 when unknown
inline bool IsValidDType(int dtype) { return dtype >= kFloat32 && dtype <= kBool; }
inline bool IsFloatDType(int dtype) {
  return dtype == kFloat32 || dtype == kFloat64 || dtype == kFloat16;
}

/*!
 * \brief N-d shape. ndim == -1 means unknown; a dim of -1 is an unknown extent.
 * Up to kInline dims live inside the object so copying a shape never allocates.
 */
class TShape {
 public:
  static constexpr int kInline = 6;
  static constexpr int kMaxNDim = 32;

  TShape() = default;
  explicit TShape(int ndim, dim_t fill = -1) { Resize(ndim, fill); }
  TShape(std::initializer_list<dim_t> dims) { Assign(dims.begin(), dims.end()); }
  template <typename It, typename = std::enable_if_t<!std::is_integral<It>::value>>
  TShape(It begin, It end) { Assign(begin, end); }
  TShape(const TShape& o) { Assign(o.begin(), o.end()); ndim_ = o.ndim_; }
  TShape& operator=(const TShape& o) {
    if (this != &o) { Assign(o.begin(), o.end()); ndim_ = o.ndim_; }
    return *this;
  }
  TShape(TShape&& o) noexcept { *this = static_cast<const TShape&>(o); }
  TShape& operator=(TShape&& o) noexcept { return *this = static_cast<const TShape&>(o); }

  int ndim() const { return ndim_; }
  bool is_none() const { return ndim_ < 0; }
  dim_t* begin() { return data(); }
  dim_t* end() { return data() + (ndim_ > 0 ? ndim_ : 0); }
  const dim_t* begin() const { return data(); }
  const dim_t* end() const { return data() + (ndim_ > 0 ? ndim_ : 0); }
  dim_t& operator[](int i) { return data()[i]; }
  dim_t operator[](int i) const { return data()[i]; }
  /*! \brief Number of elements; 1 for a scalar shape (ndim 0). Throws dmlc::Error naming the
   *  shape when a dim is unknown or the product does not fit in index_t (never wraps to 0). */
  size_t Size() const { return ProdShape(0, ndim_ > 0 ? ndim_ : 0); }
  /*! \brief Product of dims in [begin, end), checked like Size(). */
  size_t ProdShape(int b, int e) const {
    uint64_t n = 1;
    bool overflow = false, zero = false;
    for (int i = b; i < e; ++i) {
      dim_t d = (*this)[i];
      if (d < 0) SizeError(*this, false);
      zero = zero || d == 0;
      overflow = overflow || __builtin_mul_overflow(n, static_cast<uint64_t>(d), &n) ||
                 n > static_cast<uint64_t>(INT64_MAX);
    }
    if (zero) return 0;
    if (overflow) SizeError(*this, true);
    return static_cast<size_t>(n);
  }
  /*! \brief True when ndim and every dim are known. */
  bool IsKnown() const {
    if (ndim_ < 0) return false;
    for (dim_t d : *this) if (d < 0) return false;
    return true;
  }
  bool operator==(const TShape& o) const {
    if (ndim_ != o.ndim_) return false;
    for (int i = 0; i < ndim_; ++i) if ((*this)[i] != o[i]) return false;
    return true;
  }
  bool operator!=(const TShape& o) const { return !(*this == o); }
  void Resize(int ndim, dim_t fill = -1) {
    ndim_ = ndim;
    if (ndim > kInline) heap_.reset(new dim_t[ndim]); else heap_.reset();
    for (int i = 0; i < ndim; ++i) data()[i] = fill;
  }
  std::vector<dim_t> ToVector() const { return std::vector<dim_t>(begin(), end()); }
  std::string ToString() const;  // "(2,3)" as MXNet prints shapes

 private:
  /*! \brief Throw for Size() of a shape with an unknown dim or too many elements. */
  [[noreturn]] static void SizeError(const TShape& s, bool overflow);
  template <typename It>
  void Assign(It b, It e) {
    int n = static_cast<int>(e - b);
    Resize(n);
    dim_t* d = data();
    for (int i = 0; i < n; ++i) d[i] = static_cast<dim_t>(b[i]);
  }
  dim_t* data() { return heap_ ? heap_.get() : inline_; }
  const dim_t* data() const { return heap_ ? heap_.get() : inline_; }

  int ndim_{-1};
  dim_t inline_[kInline] = {0, 0, 0, 0, 0, 0};
  std::unique_ptr<dim_t[]> heap_;
};
std::ostream& operator<<(std::ostream& os, const TShape& s);

/*! \brief numpy-shape semantics (values match MXNet's NumpyShape and MXSetIsNumpyShape). Off: a
 *  dim of 0 in an operator's shapes means "unknown". On: 0 is a real extent and () a scalar.
 *  The switch itself lives in Imperative; lower layers take the value as an argument. */
enum NumpyShape : int { kNumpyShapeOff = 0, kNumpyShapeThreadLocalOn = 1, kNumpyShapeGlobalOn = 2 };

/*! \brief What an engine worker hands to a running operator. */
struct RunContext {
  Context ctx;
  void* stream{nullptr};  // cudaStream_t on GPU workers, null on CPU
  bool is_bulk{false};
  Context get_ctx() const { return ctx; }
};

/*! \brief How an operator writes an output. Values match MXNet's OpReqType. */
enum OpReqType { kNullOp = 0, kWriteTo = 1, kWriteInplace = 2, kAddTo = 3 };

}  // namespace mxnet

#endif  // MXNET_BASE_H_
