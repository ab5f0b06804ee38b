// mxnet._ffi: NDArray arithmetic as CPython number slots, the per-call hot path of `a + b`.
//
// pybind11 reaches an operator through the type's generic slot, a method lookup and its
// overload dispatcher, which costs more than the operation itself on a small array. The
// slots installed here handle the common operand types directly (two NDArrays, or an NDArray
// and a Python float or int) and hand every other case to the pybind11 operators (__add__,
// __radd__, __iadd__, ...), so results and errors stay those of the pybind11 definitions.
#include "py_common.h"

namespace mxnet {
namespace {

PyTypeObject* g_ndarray_type = nullptr;

struct BinarySpec {
  const char* array_op;
  const char* scalar_op;
  const char* rscalar_op;  // scalar OP array
  const char* dunder;      // the pybind11 operators every other case goes to
  const char* rdunder;
  const char* idunder;
  AttrsPtr array_attrs;
};

enum BinaryKind { kAdd, kSub, kMul, kTrueDiv, kMod, kNumBinary };
BinarySpec g_specs[kNumBinary] = {
    {"broadcast_add", "_plus_scalar", "_plus_scalar", "__add__", "__radd__", "__iadd__", nullptr},
    {"broadcast_sub", "_minus_scalar", "_rminus_scalar", "__sub__", "__rsub__", "__isub__", nullptr},
    {"broadcast_mul", "_mul_scalar", "_mul_scalar", "__mul__", "__rmul__", "__imul__", nullptr},
    {"broadcast_div", "_div_scalar", "_rdiv_scalar", "__truediv__", "__rtruediv__",
     "__itruediv__", nullptr},
    {"broadcast_mod", "_mod_scalar", "_rmod_scalar", "__mod__", "__rmod__", "__imod__", nullptr},
};

// self.<name>(other), or NotImplemented when self is not an NDArray. (Calling the generic
// slot these slots replaced would not work: it only calls __add__ while it is the type's slot.)
PyObject* CallOperator(PyObject* self, const char* name, PyObject* other) {
  if (!PyObject_TypeCheck(self, g_ndarray_type)) Py_RETURN_NOTIMPLEMENTED;
  PyObject* method = PyObject_GetAttrString(self, name);
  if (method == nullptr) return nullptr;
  PyObject* result = PyObject_CallOneArg(method, other);
  Py_DECREF(method);
  return result;
}

PyObject* Fallback(const BinarySpec& s, PyObject* a, PyObject* b) {
  PyObject* r = CallOperator(a, s.dunder, b);
  if (r != Py_NotImplemented) return r;
  Py_DECREF(r);
  return CallOperator(b, s.rdunder, a);
}

// Exactly an NDArray (subclasses may override operators, so they take the generic path).
NDArray* ExactNDArray(PyObject* o) {
  if (Py_TYPE(o) != g_ndarray_type) return nullptr;
  return py::handle(o).cast<NDArray*>();
}

// A Python float or int as the double the pybind11 overload would receive.
bool ExactScalar(PyObject* o, double* v) {
  if (PyFloat_CheckExact(o)) {
    *v = PyFloat_AS_DOUBLE(o);
    return true;
  }
  if (PyLong_CheckExact(o)) {
    *v = PyLong_AsDouble(o);
    if (*v == -1.0 && PyErr_Occurred()) {  // too large: let the generic path decide
      PyErr_Clear();
      return false;
    }
    return true;
  }
  return false;
}

template <typename Fn>
PyObject* Call(Fn fn) {
  try {
    return py::cast(fn()).release().ptr();
  } catch (...) {
    SetPythonErrorFromCurrentException();
    return nullptr;
  }
}

template <int K>
PyObject* Binary(PyObject* a, PyObject* b) {
  const BinarySpec& s = g_specs[K];
  double v;
  if (NDArray* x = ExactNDArray(a)) {
    if (NDArray* y = ExactNDArray(b)) return Call([&] { return InvokeSingle(s.array_attrs, x, y); });
    if (ExactScalar(b, &v)) {
      return Call([&] { return InvokeSingle(ScalarAttrs(s.scalar_op, v, false), x, nullptr); });
    }
  } else if (NDArray* y = ExactNDArray(b)) {
    if (ExactScalar(a, &v)) {
      return Call([&] { return InvokeSingle(ScalarAttrs(s.rscalar_op, v, false), y, nullptr); });
    }
  }
  return Fallback(s, a, b);
}

template <int K>
PyObject* InplaceBinary(PyObject* a, PyObject* b) {
  const BinarySpec& s = g_specs[K];
  NDArray* x = ExactNDArray(a);
  double v;
  if (x != nullptr) {
    AttrsPtr attrs;
    NDArray* y = ExactNDArray(b);
    if (y != nullptr) {
      attrs = s.array_attrs;
    } else if (ExactScalar(b, &v)) {
      attrs = ScalarAttrs(s.scalar_op, v, false);
    }
    if (attrs) {
      try {
        InvokeInto(attrs, x, y, x);
      } catch (...) {
        SetPythonErrorFromCurrentException();
        return nullptr;
      }
      Py_INCREF(a);
      return a;
    }
  }
  return CallOperator(a, s.idunder, b);
}

template <int K>
void Install(binaryfunc* slot, binaryfunc* inplace_slot) {
  g_specs[K].array_attrs = PlainAttrs(g_specs[K].array_op);
  *slot = &Binary<K>;
  *inplace_slot = &InplaceBinary<K>;
}

}  // namespace

void InstallFastArithmetic(py::class_<NDArray>& cls) {
  g_ndarray_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  PyNumberMethods* nb = g_ndarray_type->tp_as_number;  // a heap type's: always there
  Install<kAdd>(&nb->nb_add, &nb->nb_inplace_add);
  Install<kSub>(&nb->nb_subtract, &nb->nb_inplace_subtract);
  Install<kMul>(&nb->nb_multiply, &nb->nb_inplace_multiply);
  Install<kTrueDiv>(&nb->nb_true_divide, &nb->nb_inplace_true_divide);
  Install<kMod>(&nb->nb_remainder, &nb->nb_inplace_remainder);
  PyType_Modified(g_ndarray_type);
}

}  // namespace mxnet
