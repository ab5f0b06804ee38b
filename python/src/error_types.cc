// The Python class of an MXNetError from its message: a message whose clause reads
// "IndexError: ...", "ValueError: ...", ... raises a subclass of both MXNetError and that
// builtin, so `except IndexError` catches it as in MXNet 1.9.1 (mxnet.error).
#include <cstring>
#include <string>

#include "py_common.h"

namespace mxnet {
namespace {

struct TypedError {
  const char* name;
  PyObject* builtin;
  PyObject* cls;
};

TypedError* Table() {
  static TypedError table[] = {
      {"IndexError", PyExc_IndexError, nullptr},
      {"ValueError", PyExc_ValueError, nullptr},
      {"TypeError", PyExc_TypeError, nullptr},
      {"AttributeError", PyExc_AttributeError, nullptr},
      {"NotImplementedError", PyExc_NotImplementedError, nullptr},
      {nullptr, nullptr, nullptr}};
  return table;
}

// Where "<name>: " starts a clause of what (the message's start, or after ": "), else npos.
size_t ClauseAt(const std::string& what, const char* name) {
  const std::string token = std::string(name) + ": ";
  for (size_t p = what.find(token); p != std::string::npos; p = what.find(token, p + 1)) {
    if (p == 0 || (p >= 2 && what.compare(p - 2, 2, ": ") == 0)) return p;
  }
  return std::string::npos;
}

}  // namespace

PyObject* MXNetErrorTypeFor(const char* what) {
  const std::string msg(what);
  TypedError* best = nullptr;
  size_t best_at = std::string::npos;
  for (TypedError* t = Table(); t->name != nullptr; ++t) {
    size_t at = ClauseAt(msg, t->name);
    if (at < best_at) {
      best_at = at;
      best = t;
    }
  }
  if (best == nullptr) return MXNetErrorType();
  if (best->cls == nullptr) {
    const std::string qualified = std::string("mxnet.error.") + best->name;
    PyObject* bases = PyTuple_Pack(2, MXNetErrorType(), best->builtin);
    if (bases == nullptr) return MXNetErrorType();
    best->cls = PyErr_NewException(qualified.c_str(), bases, nullptr);  // kept for good
    Py_DECREF(bases);
    if (best->cls == nullptr) {
      PyErr_Clear();
      return MXNetErrorType();
    }
  }
  return best->cls;
}

}  // namespace mxnet
