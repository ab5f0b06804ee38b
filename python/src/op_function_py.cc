// mxnet._ffi: the callable behind every generated mx.nd.<op> function.
//
// A Python-level wrapper (def f(*args, **kwargs): return call_op(index, *args, **kwargs))
// costs a frame, an argument tuple and dict, and pybind11's dispatcher on every call, more
// than a small operation itself. An OpFunction is called through vectorcall straight into
// CallOp. It carries __name__, __qualname__, __doc__ and __module__ in its __dict__, and
// binds like a static method (it is a method descriptor to inspect, so help() shows the op's
// documentation).
#include <cstddef>

#include "py_common.h"

namespace mxnet {
namespace {

struct OpFunctionObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dict;
  uint32_t op_index;
};

PyObject* OpFunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                               PyObject* kwnames) {
  auto* f = reinterpret_cast<OpFunctionObject*>(self);
  return CallOp(f->op_index, args, static_cast<size_t>(PyVectorcall_NARGS(nargsf)), kwnames);
}

int OpFunctionTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<OpFunctionObject*>(self)->dict);
  return 0;
}

int OpFunctionClear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<OpFunctionObject*>(self)->dict);
  return 0;
}

void OpFunctionDealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  OpFunctionClear(self);
  Py_TYPE(self)->tp_free(self);
}

PyObject* OpFunctionRepr(PyObject* self) {
  PyObject* dict = reinterpret_cast<OpFunctionObject*>(self)->dict;
  PyObject* name = dict != nullptr ? PyDict_GetItemString(dict, "__qualname__") : nullptr;
  if (name == nullptr) return PyUnicode_FromFormat("<function at %p>", self);
  return PyUnicode_FromFormat("<function %U at %p>", name, self);
}

// Binds like a static method: looked up on a class or an instance, it stays itself.
PyObject* OpFunctionGet(PyObject* self, PyObject* /*obj*/, PyObject* /*type*/) {
  Py_INCREF(self);
  return self;
}

PyTypeObject MakeOpFunctionType() {
  PyTypeObject t{PyVarObject_HEAD_INIT(nullptr, 0)};
  t.tp_name = "mxnet._ffi.OpFunction";
  t.tp_doc = "An MXNet operator as a function (mx.nd.<op>).";
  t.tp_basicsize = sizeof(OpFunctionObject);
  t.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  t.tp_vectorcall_offset = offsetof(OpFunctionObject, vectorcall);
  t.tp_dictoffset = offsetof(OpFunctionObject, dict);
  t.tp_call = PyVectorcall_Call;
  t.tp_traverse = OpFunctionTraverse;
  t.tp_clear = OpFunctionClear;
  t.tp_dealloc = OpFunctionDealloc;
  t.tp_repr = OpFunctionRepr;
  t.tp_descr_get = OpFunctionGet;
  t.tp_getattro = PyObject_GenericGetAttr;
  t.tp_setattro = PyObject_GenericSetAttr;
  t.tp_alloc = PyType_GenericAlloc;
  t.tp_free = PyObject_GC_Del;
  return t;
}

PyTypeObject g_op_function_type = MakeOpFunctionType();

// call_op(op_index, *args, **kwargs): the same call with the operator given by index.
PyObject* CallOpByIndex(PyObject* /*module*/, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) {
  if (nargs < 1 || !PyLong_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "call_op(op_index, *args, **kwargs): op_index must be an int");
    return nullptr;
  }
  const unsigned long index = PyLong_AsUnsignedLong(args[0]);
  if (index == static_cast<unsigned long>(-1) && PyErr_Occurred()) return nullptr;
  return CallOp(static_cast<uint32_t>(index), args + 1, static_cast<size_t>(nargs - 1), kwnames);
}

PyMethodDef g_call_op_def = {
    "call_op", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&CallOpByIndex)),
    METH_FASTCALL | METH_KEYWORDS,
    "call_op(op_index, *args, **kwargs): run the operator with that registry index."};

}  // namespace

void DefineOpFunction(py::module_& m) {
  if (PyType_Ready(&g_op_function_type) < 0) throw py::error_already_set();
  Py_INCREF(&g_op_function_type);
  m.add_object("OpFunction", py::handle(reinterpret_cast<PyObject*>(&g_op_function_type)));
  m.add_object("call_op", py::reinterpret_steal<py::object>(
                              PyCFunction_NewEx(&g_call_op_def, nullptr, m.attr("__name__").ptr())));
  /*!
   * make_op_function(op_index, name, doc, module): the mx.nd function of one operator.
   */
  m.def("make_op_function", [](uint32_t op_index, const std::string& name, const std::string& doc,
                               const std::string& module) {
    auto* f = PyObject_GC_New(OpFunctionObject, &g_op_function_type);
    if (f == nullptr) throw py::error_already_set();
    f->vectorcall = OpFunctionVectorcall;
    f->dict = nullptr;
    f->op_index = op_index;
    PyObject_GC_Track(reinterpret_cast<PyObject*>(f));
    py::object obj = py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(f));
    obj.attr("__name__") = name;
    obj.attr("__qualname__") = name;
    obj.attr("__doc__") = doc;
    obj.attr("__module__") = module;
    return obj;
  });
}

}  // namespace mxnet
