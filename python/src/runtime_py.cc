// mxnet._ffi: engine, random seed, save/load, features, env table, storage counters, DLPack.
#include <dmlc/io.h>


#include "common/env.h"
#include "mxnet/libinfo.h"
#include "mxnet/engine.h"
#include "mxnet/imperative.h"
#include "mxnet/storage.h"
#include "py_common.h"

namespace mxnet {

void DefineRuntime(py::module_& m) {
  m.def("waitall", [] {
    MXNET_PY_API("MXNDArrayWaitAll");
    py::gil_scoped_release nogil;
    Engine::Get()->WaitForAll();
  });
  m.def("engine_type", [] { return std::string(Engine::Get()->Type()); });
  m.def("set_bulk_size", [](int size) { return Engine::Get()->set_bulk_size(size); });
  m.def("seed", [](uint64_t seed, int dev_type, int dev_id) {
    if (dev_type < 0) {
      Imperative::Get()->SeedRandom(seed, nullptr);
    } else {
      Context ctx = MakeContext(dev_type, dev_id);
      Imperative::Get()->SeedRandom(seed, &ctx);
    }
  });
  m.def("set_np_shape", [](int flag) {
    MXNET_PY_API("MXSetIsNumpyShape");
    return Imperative::Get()->set_is_np_shape(flag);
  });
  m.def("is_np_shape", [] {
    MXNET_PY_API("MXIsNumpyShape");
    return Imperative::Get()->is_np_shape();
  });
  m.def("save", [](const std::string& fname, const std::vector<NDArray>& arrays,
                   const std::vector<std::string>& names) {
    MXNET_PY_API("MXNDArraySave");
    py::gil_scoped_release nogil;
    SaveNDArrayFile(fname, arrays, names, Imperative::Get()->is_np_shape());
  });
  m.def("load", [](const std::string& fname) {
    MXNET_PY_API("MXNDArrayLoad");
    std::vector<NDArray> arrays;
    std::vector<std::string> names;
    {
      py::gil_scoped_release nogil;
      LoadNDArrayFile(fname, &arrays, &names, Imperative::Get()->is_np_shape());
    }
    return py::make_tuple(arrays, names);
  });
  m.def("load_from_bytes", [](const py::bytes& data) {
    MXNET_PY_API("MXNDArrayLoadFromBuffer");
    std::string buf = data;
    std::vector<NDArray> arrays;
    std::vector<std::string> names;
    {
      // Filling the arrays waits for the engine, whose workers may need the GIL (a custom
      // op's callback, or freeing one).
      py::gil_scoped_release nogil;
      LoadNDArrayBuffer(buf.data(), buf.size(), &arrays, &names,
                        Imperative::Get()->is_np_shape());
    }
    return py::make_tuple(arrays, names);
  });
  m.def("save_to_bytes", [](const std::vector<NDArray>& arrays, const std::vector<std::string>& names) {
    std::string buf;
    {
      // Waits for the arrays: work it waits for (a custom op's callback) may need the GIL.
      py::gil_scoped_release nogil;
      buf = SaveNDArrayBuffer(arrays, names, Imperative::Get()->is_np_shape());
    }
    return py::bytes(buf);
  });
  m.def("features", [] {
    py::list out;
    for (const LibFeatureInfo& f : LibFeatures()) out.append(py::make_tuple(f.name, f.enabled));
    return out;
  });
  m.def("env_vars", [] {
    py::list out;
    for (const env::VarInfo& v : env::AllVars()) {
      out.append(py::make_tuple(v.name, v.type, v.default_value, v.choices, v.description));
    }
    return out;
  });
  m.def("storage_stats", [](int dev_type, int dev_id) {
    Context ctx = MakeContext(dev_type, dev_id);
    Storage* s = Storage::Get();
    return py::dict(py::arg("bytes_in_use") = s->BytesInUse(ctx),
                    py::arg("bytes_pooled") = s->BytesPooled(ctx),
                    py::arg("peak_bytes_in_use") = s->PeakBytesInUse(ctx),
                    py::arg("pool_type") = std::string(s->PoolType(ctx)));
  });
  m.def("storage_reset_peak", [](int dev_type, int dev_id) {
    py::gil_scoped_release nogil;
    Engine::Get()->WaitForAll();
    Storage::Get()->ResetPeak(MakeContext(dev_type, dev_id));
  });
  m.def("release_all", [](int dev_type, int dev_id) {
    py::gil_scoped_release nogil;
    Engine::Get()->WaitForAll();
    Storage::Get()->ReleaseAll(MakeContext(dev_type, dev_id));
  });
  m.def("set_omp_threads", [](int n) { SetNumOMPThreads(n); });
  m.def("gpu_count", [] { return GetGPUCount(); });
  m.def("version", [] { return MXNET_VERSION; });
}

}  // namespace mxnet
