// C API, data iterators: listing the registry, creating and stepping iterators.
#include <memory>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "io/iter_registry.h"

using namespace mxnet;  // NOLINT(build/namespaces)

namespace {

const io::DataIteratorReg* IterRegFromCreator(DataIterCreator creator, const char* fn) {
  API_CHECK(creator != nullptr, fn << ": argument creator is NULL (expected a handle from "
                                      "MXListDataIters)");
  for (const io::DataIteratorReg* reg : dmlc::Registry<io::DataIteratorReg>::List()) {
    if (reg == creator) return reg;
  }
  API_CHECK(false, fn << ": argument creator is not a data iterator handle (use MXListDataIters)");
  return nullptr;
}

io::DataIter* IterFromHandle(DataIterHandle handle, const char* fn) {
  API_CHECK(handle != nullptr, fn << ": argument handle is NULL (expected a data iterator)");
  return static_cast<io::DataIter*>(handle);
}

}  // namespace

int MXListDataIters(uint32_t* out_size, DataIterCreator** out_array) {
  thread_local std::vector<DataIterCreator> creators;
  API_BEGIN();
  API_NOT_NULL(out_size);
  API_NOT_NULL(out_array);
  creators.clear();
  for (const io::DataIteratorReg* reg : dmlc::Registry<io::DataIteratorReg>::List()) {
    creators.push_back(const_cast<io::DataIteratorReg*>(reg));
  }
  *out_size = static_cast<uint32_t>(creators.size());
  *out_array = creators.data();
  API_END();
}

int MXDataIterGetIterInfo(DataIterCreator creator, const char** name, const char** description,
                          uint32_t* num_args, const char*** arg_names,
                          const char*** arg_type_infos, const char*** arg_descriptions) {
  thread_local std::vector<const char*> names, types, descs;
  API_BEGIN();
  const io::DataIteratorReg* reg = IterRegFromCreator(creator, "MXDataIterGetIterInfo");
  names.clear();
  types.clear();
  descs.clear();
  for (const dmlc::ParamFieldInfo& a : reg->arguments) {  // registry strings live forever
    names.push_back(a.name.c_str());
    types.push_back(a.type_info_str.c_str());
    descs.push_back(a.description.c_str());
  }
  if (name != nullptr) *name = reg->name.c_str();
  if (description != nullptr) *description = reg->description.c_str();
  if (num_args != nullptr) *num_args = static_cast<uint32_t>(names.size());
  if (arg_names != nullptr) *arg_names = names.data();
  if (arg_type_infos != nullptr) *arg_type_infos = types.data();
  if (arg_descriptions != nullptr) *arg_descriptions = descs.data();
  API_END();
}

int MXDataIterCreateIter(DataIterCreator creator, uint32_t num_param, const char** keys,
                         const char** vals, DataIterHandle* out) {
  API_BEGIN();
  const io::DataIteratorReg* reg = IterRegFromCreator(creator, "MXDataIterCreateIter");
  API_NOT_NULL(out);
  API_CHECK(num_param == 0 || (keys != nullptr && vals != nullptr),
            "MXDataIterCreateIter: " << reg->name << ": keys or vals is NULL but num_param is "
                                     << num_param);
  io::IterKwargs kwargs;
  for (uint32_t i = 0; i < num_param; ++i) {
    API_CHECK(keys[i] != nullptr && vals[i] != nullptr,
              "MXDataIterCreateIter: " << reg->name << ": parameter " << i
                                       << " has a NULL key or value");
    kwargs.emplace_back(keys[i], vals[i]);
  }
  *out = reg->body(kwargs);
  API_END();
}

int MXDataIterFree(DataIterHandle handle) {
  API_BEGIN();
  delete static_cast<io::DataIter*>(handle);
  API_END();
}

int MXDataIterNext(DataIterHandle handle, int* out) {
  API_BEGIN();
  io::DataIter* it = IterFromHandle(handle, "MXDataIterNext");
  API_NOT_NULL(out);
  *out = it->Next() ? 1 : 0;
  API_END();
}

int MXDataIterBeforeFirst(DataIterHandle handle) {
  API_BEGIN();
  IterFromHandle(handle, "MXDataIterBeforeFirst")->BeforeFirst();
  API_END();
}

int MXDataIterGetData(DataIterHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  io::DataIter* it = IterFromHandle(handle, "MXDataIterGetData");
  API_NOT_NULL(out);
  API_CHECK(!it->Data().is_none(), "MXDataIterGetData: no current batch (call MXDataIterNext)");
  *out = new NDArray(it->Data());
  API_END();
}

int MXDataIterGetLabel(DataIterHandle handle, NDArrayHandle* out) {
  API_BEGIN();
  io::DataIter* it = IterFromHandle(handle, "MXDataIterGetLabel");
  API_NOT_NULL(out);
  API_CHECK(!it->Label().is_none(), "MXDataIterGetLabel: no current batch (call MXDataIterNext)");
  *out = new NDArray(it->Label());
  API_END();
}

int MXDataIterGetIndex(DataIterHandle handle, uint64_t** out_index, uint64_t* out_size) {
  API_BEGIN();
  io::DataIter* it = IterFromHandle(handle, "MXDataIterGetIndex");
  API_NOT_NULL(out_index);
  API_NOT_NULL(out_size);
  const std::vector<uint64_t>& index = it->Index();
  *out_index = const_cast<uint64_t*>(index.data());  // valid until the next MXDataIterNext
  *out_size = index.size();
  API_END();
}

int MXDataIterGetPadNum(DataIterHandle handle, int* pad) {
  API_BEGIN();
  io::DataIter* it = IterFromHandle(handle, "MXDataIterGetPadNum");
  API_NOT_NULL(pad);
  *pad = it->Pad();
  API_END();
}
