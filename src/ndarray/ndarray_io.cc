// MXNet's binary .params/.nd format (docs/ndarray_format.md): bounds-checked reader and writer.
#include <dmlc/logging.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "mxnet/ndarray.h"
#include "ndarray/ndarray_io.h"

namespace mxnet {
namespace {

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kV1Magic = 0xF993FAC8;
constexpr uint32_t kV2Magic = 0xF993FAC9;
constexpr uint32_t kV3Magic = 0xF993FACA;

class Writer {
 public:
  template <typename T>
  void Put(T v) { buf_.append(reinterpret_cast<const char*>(&v), sizeof(T)); }
  void Bytes(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
  std::string& str() { return buf_; }

 private:
  std::string buf_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : p_(data), end_(data + size) {}
  template <typename T>
  T Get(const char* what) {
    Need(sizeof(T), what);
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  const char* Take(size_t n, const char* what) {
    Need(n, what);
    const char* p = p_;
    p_ += n;
    return p;
  }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  void Need(size_t n, const char* what) {
    if (remaining() < n) {
      LOG(FATAL) << "Invalid NDArray file format: the data ends inside " << what
                 << " (truncated or corrupt file)";
    }
  }
  const char* p_;
  const char* end_;
};

void WriteShape(Writer* w, const TShape& s) {
  w->Put<int32_t>(s.ndim());
  for (dim_t d : s) w->Put<int64_t>(d);
}

void WriteBlob(Writer* w, const TBlob& b) {
  if (b.Size() > 0) w->Bytes(b.dptr_, b.Size() * DTypeSize(b.type_flag_));
}

// A sparse record (V2 only, as MXNet): stype, storage shape, shape, context, dtype, then each
// aux array's dtype and shape, the stored values, and the aux arrays' contents.
void WriteSparseArray(Writer* w, const NDArray& arr, int np_shape) {
  CHECK(np_shape == kNumpyShapeOff) << "save: sparse arrays cannot be saved with numpy-shape "
                                    << "semantics on (MXNet's V3 records are dense only)";
  CHECK(arr.ctx().dev_mask() == Context::kCPU) << "save: sparse arrays on " << arr.ctx()
                                               << " need a CUDA build";
  arr.WaitToRead();
  const int nad = NumAuxData(arr.storage_type());
  w->Put<uint32_t>(kV2Magic);
  w->Put<int32_t>(arr.storage_type());
  WriteShape(w, arr.storage_shape());
  WriteShape(w, arr.shape());
  w->Put<int32_t>(arr.ctx().dev_type);
  w->Put<int32_t>(arr.ctx().dev_id);
  w->Put<int32_t>(arr.dtype());
  for (int i = 0; i < nad; ++i) {
    w->Put<int32_t>(arr.aux_type(i));
    WriteShape(w, arr.aux_shape(i));
  }
  WriteBlob(w, arr.data());
  for (int i = 0; i < nad; ++i) WriteBlob(w, arr.aux_data(i));
}

void WriteArray(Writer* w, const NDArray& arr, int np_shape) {
  CHECK(!arr.is_none()) << "save: cannot save an empty (none) NDArray";
  if (arr.storage_type() != kDefaultStorage) return WriteSparseArray(w, arr, np_shape);
  const TShape& s = arr.shape();
  // V3 under numpy-shape semantics, V2 otherwise, as MXNet writes. A 0-d array is V3 even
  // outside them: a V2 record with ndim 0 means "no array" (MXNet writes one its reader
  // cannot parse), so V3 is the only record that keeps a scalar.
  w->Put<uint32_t>(np_shape != kNumpyShapeOff || s.ndim() == 0 ? kV3Magic : kV2Magic);
  w->Put<int32_t>(0);  // dense storage
  WriteShape(w, s);
  Context ctx = arr.ctx();
  w->Put<int32_t>(ctx.dev_type);
  w->Put<int32_t>(ctx.dev_id);
  w->Put<int32_t>(arr.dtype());
  size_t n = s.Size();
  if (n == 0) return;
  std::string data(n * DTypeSize(arr.dtype()), '\0');
  arr.SyncCopyToCPU(&data[0], n);
  w->Bytes(data.data(), data.size());
}

TShape ReadShape(Reader* r, bool int64_dims) {
  int32_t ndim = int64_dims ? r->Get<int32_t>("the array shape") : 0;
  CHECK(ndim >= -1 && ndim <= TShape::kMaxNDim)
      << "Invalid NDArray file format: array has ndim " << ndim << ", expected 0.."
      << TShape::kMaxNDim;
  if (ndim < 0) return TShape();
  TShape s(ndim, 0);
  for (int i = 0; i < ndim; ++i) {
    int64_t d = r->Get<int64_t>("the array shape");
    CHECK_GE(d, -1) << "Invalid NDArray file format: negative dimension " << d;
    s[i] = d;
  }
  return s;
}

// The bytes of a blob of shape s and dtype t, checked against what is left.
const char* TakeBlob(Reader* r, const TShape& s, int t, const char* what) {
  size_t bytes = s.Size() * DTypeSize(t);
  CHECK_LE(bytes, r->remaining()) << "Invalid NDArray file format: " << what << " of shape " << s
                                  << " needs " << bytes << " bytes, only " << r->remaining()
                                  << " left (truncated or corrupt file)";
  return r->Take(bytes, what);
}

// The rest of a sparse record, after its stype (see WriteSparseArray).
NDArray ReadSparseArray(Reader* r, int stype) {
  CHECK(stype == kRowSparseStorage || stype == kCSRStorage)
      << "Invalid NDArray file format: unknown storage type " << stype;
  TShape sshape = ReadShape(r, true);
  TShape shape = ReadShape(r, true);
  CHECK(shape.IsKnown() && sshape.IsKnown() && shape.ndim() >= 1)
      << "Invalid NDArray file format: sparse array of shape " << shape;
  int32_t dev_type = r->Get<int32_t>("the array context");
  r->Get<int32_t>("the array context");
  CHECK(dev_type == 1 || dev_type == 2 || dev_type == 3 || dev_type == 5)
      << "Invalid NDArray file format: unknown device type " << dev_type;
  int32_t dtype = r->Get<int32_t>("the array dtype");
  CHECK(IsValidDType(dtype)) << "load: dtype flag " << dtype << " is not supported (expected 0..7)";
  std::vector<int> aux_types;
  std::vector<TShape> aux_shapes;
  for (int i = 0; i < NumAuxData(stype); ++i) {
    aux_types.push_back(r->Get<int32_t>("an aux array dtype"));
    CHECK(IsValidDType(aux_types.back())) << "Invalid NDArray file format: aux dtype "
                                          << aux_types.back();
    aux_shapes.push_back(ReadShape(r, true));
    CHECK(aux_shapes.back().IsKnown() && aux_shapes.back().ndim() == 1)
        << "Invalid NDArray file format: aux array of shape " << aux_shapes.back();
  }
  NDArray arr(static_cast<NDArrayStorageType>(stype), shape, Context::CPU(), false, dtype,
              aux_types, aux_shapes);
  CHECK_EQ(arr.storage_shape(), sshape) << "Invalid NDArray file format: storage shape " << sshape
                                        << " does not match the aux shapes";
  auto fill = [r](const TBlob& b, const char* what) {
    const char* p = TakeBlob(r, b.shape_, b.type_flag_, what);
    if (b.Size() > 0) std::memcpy(b.dptr_, p, b.Size() * DTypeSize(b.type_flag_));
  };
  fill(arr.data(), "the array data");
  for (int i = 0; i < NumAuxData(stype); ++i) fill(arr.aux_data(i), "an aux array");
  arr.SyncCheckFormat(true);
  return arr;
}

NDArray ReadArray(Reader* r, int np_shape) {
  uint32_t magic = r->Get<uint32_t>("an array header");
  // The record's shape semantics must be the caller's (a global switch reads both), as in MXNet.
  if (magic == kV3Magic) {
    CHECK(np_shape != kNumpyShapeOff)
        << "load: the array was saved with numpy-shape semantics and must be loaded with them "
        << "on: use `with mx.np_shape(True):` (or mx.set_np_shape(True)) around the load";
  } else {
    CHECK(np_shape != kNumpyShapeThreadLocalOn)
        << "load: the array was saved without numpy-shape semantics and must be loaded with "
        << "them off: use `with mx.np_shape(False):` around the load";
  }
  TShape shape;
  bool legacy = true;
  if (magic == kV2Magic || magic == kV3Magic) {
    int32_t stype = r->Get<int32_t>("the storage type");
    if (stype != kDefaultStorage) {
      CHECK(magic == kV2Magic) << "load: a numpy-shape (V3) record must be dense, given "
                               << "storage type " << stype;
      return ReadSparseArray(r, stype);
    }
    shape = ReadShape(r, true);
    legacy = magic == kV2Magic;
  } else if (magic == kV1Magic) {
    shape = ReadShape(r, true);
  } else {
    // V0: the word just read is ndim and the dims are uint32.
    CHECK_LE(magic, static_cast<uint32_t>(TShape::kMaxNDim))
        << "Invalid NDArray file format: unknown array header 0x" << std::hex << magic
        << std::dec;  // the log stream is reused: leave it in decimal
    shape = TShape(static_cast<int>(magic), 0);
    for (uint32_t i = 0; i < magic; ++i) shape[i] = r->Get<uint32_t>("the array shape");
  }
  // "No array" records: legacy ndim 0, or a V3 shape with an unknown dim.
  if ((legacy && shape.ndim() == 0) || !shape.IsKnown()) return NDArray();
  int32_t dev_type = r->Get<int32_t>("the array context");
  r->Get<int32_t>("the array context");  // dev_id: arrays load on cpu(0) as MXNet's CPU build does
  CHECK(dev_type == 1 || dev_type == 2 || dev_type == 3 || dev_type == 5)
      << "Invalid NDArray file format: unknown device type " << dev_type;
  int32_t dtype = r->Get<int32_t>("the array dtype");
  CHECK(IsValidDType(dtype)) << "load: dtype flag " << dtype << " is not supported (expected 0..7)";
  size_t n = shape.Size();
  size_t bytes = n * DTypeSize(dtype);
  CHECK_LE(bytes, r->remaining()) << "Invalid NDArray file format: array of shape " << shape
                                  << " needs " << bytes << " bytes, only " << r->remaining()
                                  << " left (truncated or corrupt file)";
  NDArray arr(shape, Context::CPU(), false, dtype);
  const char* data = r->Take(bytes, "the array data");
  if (n > 0) arr.SyncCopyFromCPU(data, n);
  return arr;
}

// Names are UTF-8 (Python str); reject what a strict decoder rejects: bad lead or continuation
// bytes, overlong forms, surrogates and code points past U+10FFFF.
bool IsValidUTF8(const char* s, size_t n) {
  const auto* p = reinterpret_cast<const unsigned char*>(s);
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || static_cast<size_t>(extra) > n - i - 1) return false;
    uint32_t cp = extra == 0 ? c : c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += extra + 1;
  }
  return true;
}

}  // namespace

std::string SaveNDArrayBuffer(const std::vector<NDArray>& arrays,
                              const std::vector<std::string>& names, int np_shape) {
  CHECK(names.empty() || names.size() == arrays.size())
      << "save: " << arrays.size() << " arrays but " << names.size() << " names";
  Writer w;
  w.Put<uint64_t>(kListMagic);
  w.Put<uint64_t>(0);
  w.Put<uint64_t>(arrays.size());
  for (const NDArray& a : arrays) WriteArray(&w, a, np_shape);
  w.Put<uint64_t>(names.size());
  for (const std::string& n : names) {
    w.Put<uint64_t>(n.size());
    w.Bytes(n.data(), n.size());
  }
  return std::move(w.str());
}

void LoadNDArrayBuffer(const char* data, size_t size, std::vector<NDArray>* arrays,
                       std::vector<std::string>* names, int np_shape) {
  Reader r(data, size);
  uint64_t magic = r.Get<uint64_t>("the file header");
  CHECK_EQ(magic, kListMagic) << "Invalid NDArray file format: bad magic number 0x" << std::hex
                              << magic << std::dec << " (not an MXNet .params/.nd file)";
  r.Get<uint64_t>("the file header");
  uint64_t n = r.Get<uint64_t>("the array count");
  // Each record takes at least 8 bytes, which bounds a corrupt count before allocating.
  CHECK_LE(n, r.remaining() / 8) << "Invalid NDArray file format: claims " << n
                                 << " arrays in " << r.remaining() << " bytes";
  arrays->clear();
  names->clear();
  for (uint64_t i = 0; i < n; ++i) arrays->push_back(ReadArray(&r, np_shape));
  uint64_t k = r.Get<uint64_t>("the name count");
  CHECK(k == 0 || k == n) << "Invalid NDArray file format: " << n << " arrays but " << k
                          << " names";
  for (uint64_t i = 0; i < k; ++i) {
    uint64_t len = r.Get<uint64_t>("a name");
    CHECK_LE(len, r.remaining()) << "Invalid NDArray file format: name length " << len
                                 << " exceeds the file";
    const char* p = r.Take(len, "a name");
    CHECK(IsValidUTF8(p, len)) << "Invalid NDArray file format: name " << i
                               << " is not valid UTF-8 (corrupt file)";
    names->emplace_back(p, len);
  }
}

std::string SaveNDArrayRawBytes(const NDArray& arr, int np_shape) {
  Writer w;
  WriteArray(&w, arr, np_shape);
  return std::move(w.str());
}

NDArray LoadNDArrayRawBytes(const char* data, size_t size, int np_shape) {
  Reader r(data, size);
  NDArray arr = ReadArray(&r, np_shape);
  CHECK_EQ(r.remaining(), 0U) << "Invalid NDArray raw bytes: " << r.remaining()
                              << " bytes left after the array record (corrupt data)";
  return arr;
}

void SaveNDArrayFile(const std::string& fname, const std::vector<NDArray>& arrays,
                     const std::vector<std::string>& names, int np_shape) {
  std::string buf = SaveNDArrayBuffer(arrays, names, np_shape);
  std::ofstream out(fname, std::ios::binary | std::ios::trunc);
  CHECK(out.good()) << "save: cannot open " << fname << " for writing";
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  out.close();
  CHECK(out.good()) << "save: failed writing " << fname;
}

void LoadNDArrayFile(const std::string& fname, std::vector<NDArray>* arrays,
                     std::vector<std::string>* names, int np_shape) {
  std::ifstream in(fname, std::ios::binary);
  CHECK(in.good()) << "load: cannot open " << fname << " (no such file or not readable)";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string buf = ss.str();
  try {
    LoadNDArrayBuffer(buf.data(), buf.size(), arrays, names, np_shape);
  } catch (const dmlc::Error& e) {
    throw dmlc::Error(std::string(e.what()) + " [file " + fname + "]");
  }
}

}  // namespace mxnet
