// Names and sizes of the core value types declared in mxnet/base.h.
#include "mxnet/base.h"

#include <sstream>

namespace mxnet {

std::string Context::DeviceName() const {
  switch (dev_type) {
    case kCPU: return "cpu";
    case kGPU: return "gpu";
    case kCPUPinned: return "cpu_pinned";
    case kCPUShared: return "cpu_shared";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, const Context& ctx) {
  return os << ctx.DeviceName() << "(" << ctx.dev_id << ")";
}

const std::vector<DTypeInfo>& DTypeTable() {
  static const std::vector<DTypeInfo> table = {
      {kFloat32, "float32", "float32", 4}, {kFloat64, "float64", "float64", 8},
      {kFloat16, "float16", "float16", 2}, {kUint8, "uint8", "uint8", 1},
      {kInt32, "int32", "int32", 4},       {kInt8, "int8", "int8", 1},
      {kInt64, "int64", "int64", 8},       {kBool, "bool", "bool", 1},
  };
  return table;
}

const char* DTypeName(int dtype) {
  for (const auto& r : DTypeTable()) if (r.flag == dtype) return r.name;
  return "unknown";
}

int DTypeFromName(const std::string& name) {
  for (const auto& r : DTypeTable()) if (name == r.name) return r.flag;
  return -1;
}

size_t DTypeSize(int dtype) {
  for (const auto& r : DTypeTable()) if (r.flag == dtype) return r.size;
  return 0;
}

std::string TShape::ToString() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

void TShape::SizeError(const TShape& s, bool overflow) {
  std::ostringstream os;
  if (overflow) {
    os << "shape " << s << " is too large: its number of elements does not fit in a 64-bit "
       << "index (at most " << INT64_MAX << " elements)";
  } else {
    os << "shape " << s << " has an unknown dim (-1): its number of elements is undefined";
  }
  throw dmlc::Error(os.str());
}

std::ostream& operator<<(std::ostream& os, const TShape& s) {
  if (s.is_none()) return os << "None";
  os << '(';
  for (int i = 0; i < s.ndim(); ++i) {
    if (i) os << ',';
    os << s[i];
  }
  if (s.ndim() == 1) os << ',';
  return os << ')';
}

}  // namespace mxnet
