// mxnet._ffi: the sparse array classes (CSRNDArray, RowSparseNDArray) and their parts.
#include "py_common.h"

namespace mxnet {
namespace {

TShape ShapeOf(const std::vector<dim_t>& dims) { return TShape(dims.begin(), dims.end()); }

py::tuple ShapeTuple(const TShape& s) {
  py::tuple t(s.ndim());
  for (int i = 0; i < s.ndim(); ++i) t[i] = py::int_(s[i]);
  return t;
}

}  // namespace

void DefineSparse(py::module_& m, py::class_<NDArray>& cls) {
  // X(None): an empty array that __setstate__ fills (pickles of sparse arrays).
  py::class_<BaseSparseNDArrayPy, NDArray>(m, "BaseSparseNDArray")
      .def(py::init([](py::none) { return BaseSparseNDArrayPy(); }), py::arg("handle"));
  py::class_<CSRNDArrayPy, BaseSparseNDArrayPy>(m, "CSRNDArray")
      .def(py::init([](py::none) { return CSRNDArrayPy(); }), py::arg("handle"));
  py::class_<RowSparseNDArrayPy, BaseSparseNDArrayPy>(m, "RowSparseNDArray")
      .def(py::init([](py::none) { return RowSparseNDArrayPy(); }), py::arg("handle"));
  // ndarray_from_handle(handle): the array of an NDArrayHandle (taking ownership), as the
  // class of its storage type (MXNet's _ndarray_cls).
  m.def("ndarray_from_handle", [](uintptr_t handle) {
    if (handle == 0) throw py::value_error("NDArray: handle is NULL");
    std::unique_ptr<NDArray> owned(reinterpret_cast<NDArray*>(handle));
    return NDArray(*owned);
  });
  cls.def_property_readonly("_stype", &NDArray::storage_type)
      .def_property_readonly("_storage_shape",
                             [](const NDArray& a) {
                               a.WaitToRead();
                               return ShapeTuple(a.storage_shape());
                             })
      .def("_aux_type", [](const NDArray& a, size_t i) { return a.aux_type(i); })
      .def("_aux_ndarray",
           [](const NDArray& a, size_t i) {
             MXNET_PY_API("MXNDArrayGetAuxNDArray64");
             py::gil_scoped_release nogil;
             return a.aux_ndarray(i);
           })
      .def("_data_ndarray",
           [](const NDArray& a) {
             MXNET_PY_API("MXNDArrayGetDataNDArray");
             py::gil_scoped_release nogil;
             return a.data_ndarray();
           })
      .def("_check_format",
           [](const NDArray& a, bool full_check) {
             MXNET_PY_API("MXNDArraySyncCheckFormat");
             py::gil_scoped_release nogil;
             a.SyncCheckFormat(full_check);
           })
      // _sync_copyfrom_ndarray(src, j): src's values into this array's values (j == -1) or
      // into its aux array j (MXNDArraySyncCopyFromNDArray).
      .def("_sync_copyfrom_ndarray", [](const NDArray& a, const NDArray& src, int j) {
        MXNET_PY_API("MXNDArraySyncCopyFromNDArray");
        py::gil_scoped_release nogil;
        a.SyncCopyFromNDArray(src, -1, j);
      });
  // sparse_empty(stype, shape, dev_type, dev_id, dtype, aux_types, aux_shapes): a sparse array;
  // without aux shapes it holds no element (all zeros).
  m.def("sparse_empty", [](int stype, const std::vector<dim_t>& shape, int dev_type, int dev_id,
                           int dtype, const std::vector<int>& aux_types,
                           const std::vector<std::vector<dim_t>>& aux_shapes) {
    MXNET_PY_API("MXNDArrayCreateSparseEx64");
    if (stype != kRowSparseStorage && stype != kCSRStorage) {
      throw py::value_error("sparse_empty: storage type expected 1 (row_sparse) or 2 (csr), "
                            "given " + std::to_string(stype));
    }
    std::vector<TShape> shapes;
    for (const auto& s : aux_shapes) shapes.push_back(ShapeOf(s));
    return NDArray(static_cast<NDArrayStorageType>(stype), ShapeOf(shape),
                   MakeContext(dev_type, dev_id), false, dtype, aux_types, shapes);
  });
}

}  // namespace mxnet
