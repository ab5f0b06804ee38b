// The C predict API (mxnet/c_predict_api.h): a predictor is an Executor made by SimpleBind
// without gradients, its parameters copied in from a .params buffer.
#include "mxnet/c_predict_api.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/executor.h"
#include "mxnet/imperative.h"
#include "nnvm/pass.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace {

struct Predictor {
  std::unique_ptr<Executor> exec;
  std::vector<std::string> input_keys;  // the inputs whose shapes were given
  std::set<std::string> params;         // the arguments and states copied from the params
  std::vector<uint32_t> shape_buffer;   // MXPredGetOutputShape's answer
};

struct NDList {
  std::vector<std::string> keys;
  std::vector<TShape> shapes;
  std::vector<size_t> offsets;  // start of each array in data
  std::vector<float> data;
  std::vector<uint32_t> shape_buffer;  // MXNDListGet's answer
};

Predictor* PredictorFrom(PredictorHandle h, const char* fn) {
  API_CHECK(h != nullptr, fn << ": argument handle is NULL (expected a predictor)");
  return static_cast<Predictor*>(h);
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none)" : s;
}

std::string ShapeText(const TShape& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

// An argument a predictor may leave out of the params: a loss's label, which inference
// does not read (MXNet's checkpoints of Module carry softmax_label this way).
bool IsLabel(const std::string& name) {
  const std::string suffix = "label";
  return name.size() >= suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The outputs named by keys: "<node>" for its output "<node>_output", or an output name as
// get_internals lists it.
nnvm::Symbol SelectOutputs(const nnvm::Symbol& sym, uint32_t n, const char** keys) {
  API_CHECK(keys != nullptr, "MXPredCreatePartialOut: argument output_keys is NULL");
  nnvm::Symbol internals = sym.GetInternals();
  std::vector<std::string> names = internals.ListOutputNames();
  std::vector<nnvm::Symbol> picked;
  for (uint32_t i = 0; i < n; ++i) {
    API_CHECK(keys[i] != nullptr, "MXPredCreatePartialOut: output_keys[" << i << "] is NULL");
    const std::string key = keys[i];
    auto it = std::find(names.begin(), names.end(), key + "_output");
    if (it == names.end()) it = std::find(names.begin(), names.end(), key);
    API_CHECK(it != names.end(), "MXPredCreatePartialOut: the symbol has no node output '"
                                     << key << "_output' or '" << key
                                     << "' (output keys name nodes, or outputs as "
                                        "get_internals().list_outputs() lists them)");
    picked.push_back(internals[it - names.begin()]);
  }
  return nnvm::Symbol::CreateGroup(picked);
}

// The arrays of a .params buffer by name, "arg:"/"aux:" prefixes dropped.
std::map<std::string, NDArray> LoadParams(const void* bytes, int size) {
  std::map<std::string, NDArray> params;
  if (size == 0) return params;
  API_CHECK(size > 0, "MXPredCreate: param_size is " << size << " (expected >= 0)");
  API_CHECK(bytes != nullptr, "MXPredCreate: param_bytes is NULL but param_size is " << size);
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  LoadNDArrayBuffer(static_cast<const char*>(bytes), static_cast<size_t>(size), &arrays, &names,
                    Imperative::Get()->is_np_shape());
  API_CHECK(names.size() == arrays.size() || arrays.empty(),
            "MXPredCreate: the params hold " << arrays.size()
                                             << " unnamed arrays (expected arg:NAME / aux:NAME)");
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::string name = names[i];
    if (name.compare(0, 4, "arg:") == 0 || name.compare(0, 4, "aux:") == 0) name = name.substr(4);
    params[name] = arrays[i];
  }
  return params;
}

// Fail unless every key names an argument or auxiliary state of the symbol.
void CheckKeys(const char* fn, const std::map<std::string, TShape>& shapes,
               const std::vector<std::string>& args, const std::vector<std::string>& aux) {
  for (const auto& kv : shapes) {
    bool known = std::find(args.begin(), args.end(), kv.first) != args.end() ||
                 std::find(aux.begin(), aux.end(), kv.first) != aux.end();
    API_CHECK(known, fn << ": unknown input key '" << kv.first
                        << "'; the arguments of the symbol are: " << Join(args));
  }
}

// What a creation call asks for, beyond the symbol.
struct CreateRequest {
  const char* fn;
  std::map<std::string, TShape> shapes;
  std::map<std::string, int> dtypes;  // given by the caller (the params' own win)
  Context ctx;
};

// Bind one predictor and copy the parameters in; with shared, parameters are shared with
// that executor instead (one copy for MXPredCreateMultiThread).
std::unique_ptr<Predictor> Bind(const nnvm::Symbol& sym, const CreateRequest& req,
                                const std::map<std::string, NDArray>& params,
                                const Executor* shared) {
  std::vector<std::string> args = sym.ListInputNames(nnvm::Symbol::kReadOnlyArgs);
  std::vector<std::string> aux = sym.ListInputNames(nnvm::Symbol::kAuxiliaryStates);
  CheckKeys(req.fn, req.shapes, args, aux);
  std::vector<std::string> missing, shared_names;
  std::map<std::string, int> dtypes;
  for (const std::vector<std::string>* names : {&args, &aux}) {
    for (const std::string& name : *names) {
      auto p = params.find(name);
      auto given = req.dtypes.find(name);
      if (p != params.end()) {
        dtypes[name] = p->second.dtype();
        shared_names.push_back(name);
      } else {
        dtypes[name] = given != req.dtypes.end() ? given->second : kFloat32;
        if (!req.shapes.count(name) && !IsLabel(name)) missing.push_back(name);
      }
    }
  }
  API_CHECK(missing.empty(), req.fn << ": the params lack " << Join(missing)
                                    << ", not given as input keys either (each argument and "
                                       "auxiliary state is an input key or in the params as "
                                       "arg:NAME / aux:NAME)");
  auto pred = std::make_unique<Predictor>();
  for (const auto& kv : req.shapes) pred->input_keys.push_back(kv.first);
  pred->params.insert(shared_names.begin(), shared_names.end());
  pred->exec = Executor::SimpleBind(sym, req.ctx, req.shapes, dtypes,
                                    std::vector<uint32_t>(args.size(), kGradNull), shared,
                                    shared_names, nullptr);
  if (shared != nullptr) return pred;
  const Executor& ex = *pred->exec;
  auto copy_in = [&](const std::vector<std::string>& names, const std::vector<NDArray>& arrays) {
    for (size_t i = 0; i < names.size(); ++i) {
      auto p = params.find(names[i]);
      if (p == params.end()) continue;
      API_CHECK(p->second.shape() == arrays[i].shape(),
                req.fn << ": parameter '" << names[i] << "' has shape "
                       << ShapeText(p->second.shape()) << " in the params, the symbol with "
                       << "the given input shapes needs " << ShapeText(arrays[i].shape()));
      CopyFromTo(p->second, arrays[i]);
    }
  };
  copy_in(ex.arg_names(), ex.in_args());
  copy_in(ex.aux_names(), ex.aux_states());
  return pred;
}

int Create(const char* fn, const char* symbol_json_str, const void* param_bytes, int param_size,
           int dev_type, int dev_id, uint32_t num_input_nodes, const char** input_keys,
           const uint32_t* input_shape_indptr, const uint32_t* input_shape_data,
           uint32_t num_output_nodes, const char** output_keys, int num_threads,
           uint32_t num_dtypes, const char** dtype_names, const int* dtype_values,
           PredictorHandle* out) {
  API_BEGIN();
  API_CHECK(symbol_json_str != nullptr, fn << ": argument symbol_json_str is NULL");
  API_CHECK(out != nullptr, fn << ": argument out is NULL");
  API_CHECK(num_threads >= 1, fn << ": num_threads is " << num_threads << " (expected >= 1)");
  CreateRequest req{fn, {}, {}, c_api::MakeCtx(dev_type, dev_id)};
  req.shapes = c_api::ShapesFrom(num_input_nodes, input_keys, input_shape_data,
                                 input_shape_indptr);
  if (num_dtypes > 0) {
    API_CHECK(dtype_names != nullptr && dtype_values != nullptr,
              fn << ": provided_arg_dtype_names or provided_arg_dtypes is NULL");
  }
  for (uint32_t i = 0; i < num_dtypes; ++i) {
    API_CHECK(IsValidDType(dtype_values[i]), fn << ": dtype " << dtype_values[i] << " given for '"
                                                << dtype_names[i] << "' is not a type flag");
    req.dtypes[dtype_names[i]] = dtype_values[i];
  }
  nnvm::Symbol sym = nnvm::LoadJSON(symbol_json_str);
  if (num_output_nodes > 0) sym = SelectOutputs(sym, num_output_nodes, output_keys);
  std::map<std::string, NDArray> params = LoadParams(param_bytes, param_size);
  std::vector<std::unique_ptr<Predictor>> preds;
  preds.push_back(Bind(sym, req, params, nullptr));
  for (int i = 1; i < num_threads; ++i) {
    preds.push_back(Bind(sym, req, params, preds[0]->exec.get()));
  }
  for (int i = 0; i < num_threads; ++i) out[i] = preds[i].release();
  API_END();
}

// A float32 copy of an array on the host (the element type MXNDListGet hands out).
void AppendAsFloat(const NDArray& arr, std::vector<float>* data) {
  NDArray src = arr;
  if (arr.dtype() != kFloat32) {
    static const nnvm::Op* cast = nnvm::Op::GetOrThrow("Cast");
    std::vector<NDArray*> in{&src};
    std::vector<NDArray> outs;
    Imperative::Get()->Invoke(Context::CPU(), Imperative::ParseAttrs(cast, {{"dtype", "float32"}}),
                              in, &outs);
    src = outs[0];
  }
  size_t begin = data->size();
  data->resize(begin + src.shape().Size());
  src.SyncCopyToCPU(data->data() + begin, src.shape().Size());
}

}  // namespace
}  // namespace mxnet

using mxnet::Executor;
using mxnet::NDArray;
using mxnet::Predictor;

int MXPredCreate(const char* symbol_json_str, const void* param_bytes, int param_size,
                 int dev_type, int dev_id, uint32_t num_input_nodes, const char** input_keys,
                 const uint32_t* input_shape_indptr, const uint32_t* input_shape_data,
                 PredictorHandle* out) {
  return mxnet::Create("MXPredCreate", symbol_json_str, param_bytes, param_size, dev_type,
                       dev_id, num_input_nodes, input_keys, input_shape_indptr, input_shape_data,
                       0, nullptr, 1, 0, nullptr, nullptr, out);
}

int MXPredCreateEx(const char* symbol_json_str, const void* param_bytes, int param_size,
                   int dev_type, int dev_id, const uint32_t num_input_nodes,
                   const char** input_keys, const uint32_t* input_shape_indptr,
                   const uint32_t* input_shape_data, const uint32_t num_provided_arg_dtypes,
                   const char** provided_arg_dtype_names, const int* provided_arg_dtypes,
                   PredictorHandle* out) {
  return mxnet::Create("MXPredCreateEx", symbol_json_str, param_bytes, param_size, dev_type,
                       dev_id, num_input_nodes, input_keys, input_shape_indptr, input_shape_data,
                       0, nullptr, 1, num_provided_arg_dtypes, provided_arg_dtype_names,
                       provided_arg_dtypes, out);
}

int MXPredCreatePartialOut(const char* symbol_json_str, const void* param_bytes, int param_size,
                           int dev_type, int dev_id, uint32_t num_input_nodes,
                           const char** input_keys, const uint32_t* input_shape_indptr,
                           const uint32_t* input_shape_data, uint32_t num_output_nodes,
                           const char** output_keys, PredictorHandle* out) {
  return mxnet::Create("MXPredCreatePartialOut", symbol_json_str, param_bytes, param_size,
                       dev_type, dev_id, num_input_nodes, input_keys, input_shape_indptr,
                       input_shape_data, num_output_nodes, output_keys, 1, 0, nullptr, nullptr,
                       out);
}

int MXPredCreateMultiThread(const char* symbol_json_str, const void* param_bytes, int param_size,
                            int dev_type, int dev_id, uint32_t num_input_nodes,
                            const char** input_keys, const uint32_t* input_shape_indptr,
                            const uint32_t* input_shape_data, int num_threads,
                            PredictorHandle* out) {
  return mxnet::Create("MXPredCreateMultiThread", symbol_json_str, param_bytes, param_size,
                       dev_type, dev_id, num_input_nodes, input_keys, input_shape_indptr,
                       input_shape_data, 0, nullptr, num_threads, 0, nullptr, nullptr, out);
}

int MXPredReshape(uint32_t num_input_nodes, const char** input_keys,
                  const uint32_t* input_shape_indptr, const uint32_t* input_shape_data,
                  PredictorHandle handle, PredictorHandle* out) {
  API_BEGIN();
  const Predictor* p = mxnet::PredictorFrom(handle, "MXPredReshape");
  API_NOT_NULL(out);
  auto shapes = mxnet::c_api::ShapesFrom(num_input_nodes, input_keys, input_shape_data,
                                         input_shape_indptr);
  mxnet::CheckKeys("MXPredReshape", shapes, p->exec->arg_names(), p->exec->aux_names());
  // Parameters keep their shapes; the inputs and what follows them (a label) may change.
  {
    std::vector<std::string> keys;
    std::vector<mxnet::TShape> known;
    for (const auto& kv : shapes) {
      keys.push_back(kv.first);
      known.push_back(kv.second);
    }
    const Executor& ex = *p->exec;
    auto sh = nnvm::InferSymbolShapes(ex.symbol().outputs, keys, known);
    auto check = [&](const std::vector<std::string>& names, const std::vector<NDArray>& arrays,
                     const std::vector<mxnet::TShape>& now) {
      for (size_t i = 0; i < names.size(); ++i) {
        API_CHECK(!p->params.count(names[i]) || shapes.count(names[i]) ||
                      now[i] == arrays[i].shape(),
                  "MXPredReshape: parameter '" << names[i] << "' would change shape from "
                      << mxnet::ShapeText(arrays[i].shape()) << " to "
                      << mxnet::ShapeText(now[i]) << "; only inputs may change shape");
      }
    };
    check(ex.arg_names(), ex.in_args(), sh.arg);
    check(ex.aux_names(), ex.aux_states(), sh.aux);
  }
  auto ret = std::make_unique<Predictor>();
  ret->exec = p->exec->Reshape(shapes, true, true);
  ret->input_keys = p->input_keys;
  ret->params = p->params;
  for (const auto& kv : shapes) {
    if (std::find(ret->input_keys.begin(), ret->input_keys.end(), kv.first) ==
        ret->input_keys.end()) {
      ret->input_keys.push_back(kv.first);
    }
  }
  *out = ret.release();
  API_END();
}

int MXPredGetOutputShape(PredictorHandle handle, uint32_t index, uint32_t** shape_data,
                         uint32_t* shape_ndim) {
  API_BEGIN();
  Predictor* p = mxnet::PredictorFrom(handle, "MXPredGetOutputShape");
  API_NOT_NULL(shape_data);
  API_NOT_NULL(shape_ndim);
  const auto& outputs = p->exec->outputs();
  API_CHECK(index < outputs.size(), "MXPredGetOutputShape: output index " << index
                                        << " out of range (the predictor has "
                                        << outputs.size() << " outputs)");
  const mxnet::TShape& s = outputs[index].shape();
  p->shape_buffer.assign(s.begin(), s.end());
  *shape_data = p->shape_buffer.data();
  *shape_ndim = static_cast<uint32_t>(p->shape_buffer.size());
  API_END();
}

int MXPredGetOutputType(PredictorHandle handle, uint32_t out_index, int* out_dtype) {
  API_BEGIN();
  const Predictor* p = mxnet::PredictorFrom(handle, "MXPredGetOutputType");
  API_NOT_NULL(out_dtype);
  const auto& outputs = p->exec->outputs();
  API_CHECK(out_index < outputs.size(), "MXPredGetOutputType: output index "
                                            << out_index << " out of range (the predictor has "
                                            << outputs.size() << " outputs)");
  *out_dtype = outputs[out_index].dtype();
  API_END();
}

int MXPredSetInput(PredictorHandle handle, const char* key, const float* data, uint32_t size) {
  API_BEGIN();
  const Predictor* p = mxnet::PredictorFrom(handle, "MXPredSetInput");
  API_NOT_NULL(key);
  const auto& names = p->exec->arg_names();
  auto it = std::find(names.begin(), names.end(), std::string(key));
  API_CHECK(it != names.end(), "MXPredSetInput: unknown input key '"
                                   << key << "' (the inputs: " << mxnet::Join(p->input_keys)
                                   << "; any argument of the symbol may be set too)");
  const NDArray& arr = p->exec->in_args()[it - names.begin()];
  API_CHECK(size == arr.shape().Size(), "MXPredSetInput: input '"
                                            << key << "' has shape " << mxnet::ShapeText(arr.shape())
                                            << " (" << arr.shape().Size() << " elements), given "
                                            << size << " elements");
  if (size > 0) API_NOT_NULL(data);
  arr.SyncCopyFromCPU(data, size);
  API_END();
}

int MXPredForward(PredictorHandle handle) {
  API_BEGIN();
  mxnet::PredictorFrom(handle, "MXPredForward")->exec->Forward(false);
  API_END();
}

int MXPredPartialForward(PredictorHandle handle, int step, int* step_left) {
  API_BEGIN();
  Predictor* p = mxnet::PredictorFrom(handle, "MXPredPartialForward");
  API_NOT_NULL(step_left);
  p->exec->PartialForward(false, step, step_left);
  API_END();
}

int MXPredGetOutput(PredictorHandle handle, uint32_t index, float* data, uint32_t size) {
  API_BEGIN();
  const Predictor* p = mxnet::PredictorFrom(handle, "MXPredGetOutput");
  const auto& outputs = p->exec->outputs();
  API_CHECK(index < outputs.size(), "MXPredGetOutput: output index "
                                        << index << " out of range (the predictor has "
                                        << outputs.size() << " outputs)");
  const NDArray& arr = outputs[index];
  API_CHECK(size == arr.shape().Size(), "MXPredGetOutput: output "
                                            << index << " has shape "
                                            << mxnet::ShapeText(arr.shape()) << " ("
                                            << arr.shape().Size() << " elements), given room for "
                                            << size);
  if (size > 0) API_NOT_NULL(data);
  arr.SyncCopyToCPU(data, size);
  API_END();
}

int MXPredFree(PredictorHandle handle) {
  API_BEGIN();
  delete static_cast<Predictor*>(handle);
  API_END();
}

int MXPredSetMonitorCallback(PredictorHandle handle, PredMonitorCallback callback,
                             void* callback_handle, bool monitor_all) {
  API_BEGIN();
  Executor& ex = *mxnet::PredictorFrom(handle, "MXPredSetMonitorCallback")->exec;
  if (callback == nullptr) {
    ex.SetMonitorCallback(nullptr, false);
  } else {
    ex.SetMonitorCallback(
        [callback, callback_handle](const std::string& name, const NDArray& a) {
          callback(name.c_str(), new NDArray(a), callback_handle);
        },
        monitor_all);
  }
  API_END();
}

int MXNDListCreate(const char* nd_file_bytes, int nd_file_size, NDListHandle* out,
                   uint32_t* out_length) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_NOT_NULL(out_length);
  API_CHECK(nd_file_size >= 0, "MXNDListCreate: nd_file_size is " << nd_file_size);
  API_CHECK(nd_file_bytes != nullptr || nd_file_size == 0, "MXNDListCreate: nd_file_bytes is NULL");
  auto list = std::make_unique<mxnet::NDList>();
  std::vector<NDArray> arrays;
  mxnet::LoadNDArrayBuffer(nd_file_bytes, static_cast<size_t>(nd_file_size), &arrays,
                           &list->keys, mxnet::Imperative::Get()->is_np_shape());
  list->keys.resize(arrays.size());
  for (const NDArray& a : arrays) {
    list->offsets.push_back(list->data.size());
    list->shapes.push_back(a.shape());
    mxnet::AppendAsFloat(a, &list->data);
  }
  *out_length = static_cast<uint32_t>(arrays.size());
  *out = list.release();
  API_END();
}

int MXNDListGet(NDListHandle handle, uint32_t index, const char** out_key,
                const float** out_data, const uint32_t** out_shape, uint32_t* out_ndim) {
  API_BEGIN();
  API_CHECK(handle != nullptr, "MXNDListGet: argument handle is NULL (expected an NDList)");
  API_NOT_NULL(out_key);
  API_NOT_NULL(out_data);
  API_NOT_NULL(out_shape);
  API_NOT_NULL(out_ndim);
  auto* list = static_cast<mxnet::NDList*>(handle);
  API_CHECK(index < list->shapes.size(), "MXNDListGet: index " << index
                                             << " out of range (the list has "
                                             << list->shapes.size() << " arrays)");
  const mxnet::TShape& s = list->shapes[index];
  list->shape_buffer.assign(s.begin(), s.end());
  *out_key = list->keys[index].c_str();
  *out_data = list->data.data() + list->offsets[index];
  *out_shape = list->shape_buffer.data();
  *out_ndim = static_cast<uint32_t>(list->shape_buffer.size());
  API_END();
}

int MXNDListFree(NDListHandle handle) {
  API_BEGIN();
  delete static_cast<mxnet::NDList*>(handle);
  API_END();
}
