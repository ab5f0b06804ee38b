// mxnet._ffi: the NDArray class (properties, host copies, views) and numpy conversion.
#include <pybind11/numpy.h>

#include <cstring>

#include "mxnet/imperative.h"
#include "ndarray/ndarray_io.h"
#include "py_common.h"

namespace mxnet {
namespace {

/*! \brief "float32, float64, ..." from the dtype table, for messages. */
std::string DTypeList() {
  std::string s;
  for (const DTypeInfo& r : DTypeTable()) s += (s.empty() ? "" : ", ") + std::string(r.numpy_name);
  return s;
}

py::tuple ShapeTuple(const TShape& s) {
  py::tuple t(s.ndim() > 0 ? s.ndim() : 0);
  for (int i = 0; i < s.ndim(); ++i) t[i] = py::int_(s[i]);
  return t;
}

TShape ShapeFromPy(const py::handle& obj) {
  if (py::isinstance<py::int_>(obj)) return TShape({obj.cast<dim_t>()});
  TShape s;
  std::vector<dim_t> dims;
  for (auto d : obj) dims.push_back(d.cast<dim_t>());
  return TShape(dims.begin(), dims.end());
}

void CheckShape(const TShape& s, const char* what) {
  for (dim_t d : s) {
    if (d < 0) throw py::value_error(std::string(what) + ": negative dimension in shape " + s.ToString());
  }
}

// An NDArray(None) (before __setstate__) or a "no array" record holds no data.
const NDArray& NotNone(const NDArray& a, const char* what) {
  if (a.is_none()) {
    throw dmlc::Error(std::string(what) + ": the NDArray is empty (NDArray(None) or a 'no array' "
                      "record); it has no data");
  }
  return a;
}

}  // namespace

std::string NumpyName(int dtype) {
  for (const DTypeInfo& r : DTypeTable()) if (r.flag == dtype) return r.numpy_name;
  throw py::value_error("unknown dtype flag " + std::to_string(dtype));
}

int FlagFromNumpy(const py::handle& dtype) {
  py::object np = py::module_::import("numpy");
  std::string name = py::str(np.attr("dtype")(dtype).attr("name"));
  for (const DTypeInfo& r : DTypeTable()) if (name == r.numpy_name) return r.flag;
  throw py::type_error("dtype " + name + " is not supported; expected one of " + DTypeList());
}

void DefineNDArray(py::module_& m, py::class_<NDArray>& cls) {
  // The dtype table, for the Python front (mxnet.base builds its numpy maps from it).
  m.def("dtype_table", [] {
    py::list rows;
    for (const DTypeInfo& r : DTypeTable()) {
      rows.append(py::make_tuple(r.flag, r.name, r.numpy_name, r.size));
    }
    return rows;
  });
  // NDArray(handle): take ownership of an NDArrayHandle made by the C API (as MXNet's
  // Python NDArray does); the handle must not be freed by the caller afterwards.
  cls.def(py::init([](uintptr_t handle) {
            if (handle == 0) throw py::value_error("NDArray: handle is NULL");
            std::unique_ptr<NDArray> owned(reinterpret_cast<NDArray*>(handle));
            return NDArray(*owned);
          }),
          py::arg("handle"));
  // _new_handle(): a new NDArrayHandle (heap NDArray sharing this array's data) that the
  // receiver owns, as MXNet's C API hands arrays to ctypes callbacks.
  cls.def("_new_handle",
          [](const NDArray& a) { return reinterpret_cast<uintptr_t>(new NDArray(a)); });
  // NDArray(None): an empty array, filled by __setstate__ (MXNet's pickles call this).
  cls.def(py::init([](py::none) { return NDArray(); }), py::arg("handle"));
  cls.def_property_readonly("shape", [](const NDArray& a) { return ShapeTuple(a.shape()); })
      .def_property_readonly("_dtype_flag", &NDArray::dtype)
      .def_property_readonly("_ctx",
                             [](const NDArray& a) {
                               Context c = a.ctx();
                               return py::make_tuple(static_cast<int>(c.dev_type), c.dev_id);
                             })
      .def_property_readonly("size", [](const NDArray& a) { return a.shape().Size(); })
      .def_property_readonly("ndim", [](const NDArray& a) { return a.shape().ndim(); })
      .def_property_readonly("handle", [](NDArray& a) { return reinterpret_cast<uintptr_t>(&a); })
      .def_property_readonly("_chunk_id",
                             [](const NDArray& a) { return reinterpret_cast<uintptr_t>(a.chunk_id()); })
      .def_property_readonly("_byte_offset", &NDArray::byte_offset)
      .def_property_readonly("_is_recorded", [](const NDArray& a) { return a.entry().node != nullptr; })
      .def("wait_to_read",
           [](const NDArray& a) {
             MXNET_PY_API("MXNDArrayWaitToRead");
             NotNone(a, "wait_to_read");
             py::gil_scoped_release nogil;
             a.WaitToRead();
           })
      .def("wait_to_write",
           [](const NDArray& a) {
             py::gil_scoped_release nogil;
             a.WaitToWrite();
           })
      .def("asnumpy",
           [](const NDArray& a) {
             MXNET_PY_API("MXNDArraySyncCopyToCPU");
             NotNone(a, "asnumpy");
             py::object np = py::module_::import("numpy");
             std::vector<py::ssize_t> dims(a.shape().begin(), a.shape().end());
             py::array out(py::dtype(NumpyName(a.dtype())), dims);
             {
               py::gil_scoped_release nogil;
               a.SyncCopyToCPU(out.mutable_data(), a.shape().Size());
             }
             return out;
           })
      .def("_sync_copyfrom",
           [](const NDArray& a, py::array src) {
             MXNET_PY_API("MXNDArraySyncCopyFromCPU");
             if (static_cast<size_t>(src.size()) != a.shape().Size()) {
               throw py::value_error("array of size " + std::to_string(src.size()) +
                                     " cannot be copied into NDArray of shape " +
                                     a.shape().ToString());
             }
             py::object np = py::module_::import("numpy");
             py::array c = np.attr("ascontiguousarray")(src, NumpyName(a.dtype()));
             const void* p = c.data();
             py::gil_scoped_release nogil;
             a.SyncCopyFromCPU(p, a.shape().Size());
           })
      .def("_slice", &NDArray::Slice)
      .def("_at", &NDArray::At)
      .def("_reshape_view", [](const NDArray& a, const py::handle& shape) {
        NDArray r = a.Reshape(ShapeFromPy(shape));
        r.set_entry(nnvm::NodeEntry());
        return r;
      })
      .def("_reshape_with_record",
           [](const NDArray& a, const std::vector<int64_t>& spec, bool reverse) {
             MXNET_PY_API("MXNDArrayReshape64");
             return Imperative::Get()->ReshapeWithRecord(a, spec, reverse);
           })
      .def("_as_array_view", [](const NDArray& a, const py::handle& shape, int dtype) {
        return a.AsArray(ShapeFromPy(shape), dtype).Detach();
      })
      .def("_detach", &NDArray::Detach)
      .def("_copyto", [](const NDArray& a, const NDArray& b) { CopyFromTo(a, b); })
      .def("_copy_to_ctx", [](const NDArray& a, int dev_type, int dev_id) {
        return a.Copy(MakeContext(dev_type, dev_id));
      })
      .def("_grad", [](const NDArray& a) -> py::object {
        NDArray g = Imperative::Get()->GetGrad(a);
        if (g.is_none()) return py::none();
        return py::cast(g);
      })
      .def("_grad_req", [](const NDArray& a) { return Imperative::Get()->GetGradReq(a); })
      .def("_save_raw_bytes",
           [](const NDArray& a) -> py::object {
             MXNET_PY_API("MXNDArraySaveRawBytes");
             if (a.is_none()) return py::none();
             std::string buf;
             const int np_shape = Imperative::Get()->is_np_shape();
             {
               py::gil_scoped_release nogil;
               buf = SaveNDArrayRawBytes(a, np_shape);
             }
             return py::bytes(buf);
           })
      // Replace this array by the one in raw bytes (None: an empty array), as __setstate__.
      .def("_load_raw_bytes",
           [](NDArray& a, const py::object& data) {
             MXNET_PY_API("MXNDArrayLoadFromRawBytes");
             if (data.is_none()) {
               a = NDArray();
               return;
             }
             py::buffer_info info = py::reinterpret_borrow<py::buffer>(data).request();
             a = LoadNDArrayRawBytes(static_cast<const char*>(info.ptr),
                                     static_cast<size_t>(info.size * info.itemsize),
                                     Imperative::Get()->is_np_shape());
           })
      .def("_same_entry", [](const NDArray& a, const NDArray& b) {
        return a.entry().node == b.entry().node && a.entry().index == b.entry().index;
      });

  m.def("empty", [](const py::handle& shape, int dev_type, int dev_id, int dtype) {
    MXNET_PY_API("MXNDArrayCreateEx");
    TShape s = ShapeFromPy(shape);
    CheckShape(s, "empty");
    if (!IsValidDType(dtype)) throw py::type_error("unsupported dtype flag " + std::to_string(dtype));
    Context ctx = MakeContext(dev_type, dev_id);
    if (ctx.dev_mask() == Context::kGPU) {
      // Surface the device error now rather than at first use.
      Storage::Get()->Alloc(0, ctx);
    }
    return NDArray(s, ctx, false, dtype);
  });
  m.def("array_from_numpy", [](py::array src, int dev_type, int dev_id, int dtype) {
    MXNET_PY_API("MXNDArraySyncCopyFromCPU");
    std::vector<dim_t> dims(src.shape(), src.shape() + src.ndim());
    TShape s(dims.begin(), dims.end());
    Context ctx = MakeContext(dev_type, dev_id);
    NDArray a(s, ctx, false, dtype);
    py::object np = py::module_::import("numpy");
    py::array c = np.attr("ascontiguousarray")(src, NumpyName(dtype));
    const void* p = c.data();
    {
      py::gil_scoped_release nogil;
      a.SyncCopyFromCPU(p, s.Size());
    }
    return a;
  });
  m.def("shape_from_py", [](const py::handle& shape) { return ShapeTuple(ShapeFromPy(shape)); });
}

}  // namespace mxnet
