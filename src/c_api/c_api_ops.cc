// C API, operators: listing, handles and documentation from the registry, imperative invoke.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/imperative.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"

namespace mxnet {
namespace c_api {

/*! \brief The op behind a creator handle; fails unless it is a registered operator. */
const nnvm::Op* OpFromHandle(const void* creator, const char* fn) {
  if (creator == nullptr) Fail(std::string(fn) + ": argument creator is NULL (expected an "
                               "operator handle from NNGetOpHandle)");
  static std::mutex mu;
  static std::unordered_set<const void*> known;
  std::lock_guard<std::mutex> lock(mu);
  if (known.count(creator) == 0) {  // ops may be registered after the last scan
    for (const std::string& name : nnvm::Op::ListAllNames()) known.insert(nnvm::Op::Get(name));
  }
  if (known.count(creator) == 0) {
    Fail(std::string(fn) + ": argument creator is not an operator handle (use NNGetOpHandle)");
  }
  return static_cast<const nnvm::Op*>(creator);
}

}  // namespace c_api
}  // namespace mxnet

using namespace mxnet;  // NOLINT(build/namespaces)

int MXListAllOpNames(mx_uint* out_size, const char*** out_array) {
  thread_local std::vector<std::string> names;
  thread_local std::vector<const char*> ptrs;
  API_BEGIN();
  API_NOT_NULL(out_size);
  API_NOT_NULL(out_array);
  names = nnvm::Op::ListAllNames();
  ptrs.clear();
  for (const std::string& n : names) ptrs.push_back(n.c_str());
  *out_size = static_cast<mx_uint>(ptrs.size());
  *out_array = ptrs.data();
  API_END();
}

int NNGetOpHandle(const char* op_name, OpHandle* op_out) {
  API_BEGIN();
  API_NOT_NULL(op_name);
  API_NOT_NULL(op_out);
  const nnvm::Op* op = nnvm::Op::Get(op_name);
  API_CHECK(op != nullptr, "NNGetOpHandle: operator '" << op_name << "' is not registered");
  *op_out = const_cast<nnvm::Op*>(op);
  API_END();
}

int MXSymbolGetAtomicSymbolInfo(AtomicSymbolCreator creator, const char** name,
                                const char** description, mx_uint* num_args,
                                const char*** arg_names, const char*** arg_type_infos,
                                const char*** arg_descriptions, const char** key_var_num_args,
                                const char** return_type) {
  thread_local std::vector<const char*> names, types, descs;
  API_BEGIN();
  const nnvm::Op* op = c_api::OpFromHandle(creator, "MXSymbolGetAtomicSymbolInfo");
  names.clear();
  types.clear();
  descs.clear();
  for (const nnvm::ArgumentInfo& a : op->arguments) {  // registry strings live forever
    names.push_back(a.name.c_str());
    types.push_back(a.type.c_str());
    descs.push_back(a.description.c_str());
  }
  if (name != nullptr) *name = op->name.c_str();
  if (description != nullptr) *description = op->description.c_str();
  if (num_args != nullptr) *num_args = static_cast<mx_uint>(names.size());
  if (arg_names != nullptr) *arg_names = names.data();
  if (arg_type_infos != nullptr) *arg_type_infos = types.data();
  if (arg_descriptions != nullptr) *arg_descriptions = descs.data();
  if (key_var_num_args != nullptr) *key_var_num_args = op->key_var_num_args.c_str();
  if (return_type != nullptr) *return_type = nullptr;
  API_END();
}

int MXImperativeInvoke(AtomicSymbolCreator creator, int num_inputs, NDArrayHandle* inputs,
                       int* num_outputs, NDArrayHandle** outputs, int num_params,
                       const char** param_keys, const char** param_vals) {
  thread_local std::vector<NDArrayHandle> ret_handles;
  API_BEGIN();
  const nnvm::Op* op = c_api::OpFromHandle(creator, "MXImperativeInvoke");
  API_NOT_NULL(num_outputs);
  API_NOT_NULL(outputs);
  API_CHECK(num_inputs >= 0, "MXImperativeInvoke: operator " << op->name
                                 << ": argument num_inputs must be >= 0, given " << num_inputs);
  API_CHECK(num_inputs == 0 || inputs != nullptr,
            "MXImperativeInvoke: operator " << op->name << ": argument inputs is NULL but "
                                           "num_inputs is " << num_inputs);
  API_CHECK(num_params >= 0, "MXImperativeInvoke: operator " << op->name
                                 << ": argument num_params must be >= 0, given " << num_params);
  API_CHECK(num_params == 0 || (param_keys != nullptr && param_vals != nullptr),
            "MXImperativeInvoke: operator " << op->name << ": param_keys or param_vals is NULL "
                                           "but num_params is " << num_params);

  std::unordered_map<std::string, std::string> kwargs;
  for (int i = 0; i < num_params; ++i) {
    API_CHECK(param_keys[i] != nullptr && param_vals[i] != nullptr,
              "MXImperativeInvoke: operator " << op->name << ": parameter " << i
                                             << " has a NULL key or value");
    kwargs[param_keys[i]] = param_vals[i];
  }
  std::shared_ptr<const nnvm::NodeAttrs> attrs =
      Imperative::ParseAttrs(op, std::move(kwargs), num_inputs);
  std::vector<NDArray*> in(num_inputs);
  for (int i = 0; i < num_inputs; ++i) {
    API_CHECK(inputs[i] != nullptr,
              "MXImperativeInvoke: operator " << op->name << ": inputs[" << i << "] is NULL");
    in[i] = static_cast<NDArray*>(inputs[i]);
  }
  if (*outputs == nullptr) {  // allocate: return the visible outputs as new handles
    std::vector<NDArray> outs = Imperative::Get()->InvokeOp(Context::CPU(), attrs, in, {});
    ret_handles.clear();
    for (NDArray& o : outs) ret_handles.push_back(std::make_unique<NDArray>(std::move(o)).release());
    *num_outputs = static_cast<int>(ret_handles.size());
    *outputs = ret_handles.data();
  } else {  // write into the caller's arrays
    API_CHECK(*num_outputs >= 0, "MXImperativeInvoke: operator " << op->name
                                     << ": argument num_outputs must be >= 0, given "
                                     << *num_outputs);
    std::vector<NDArray*> dst(*num_outputs);
    for (int i = 0; i < *num_outputs; ++i) {
      API_CHECK((*outputs)[i] != nullptr,
                "MXImperativeInvoke: operator " << op->name << ": outputs[" << i << "] is NULL");
      dst[i] = static_cast<NDArray*>((*outputs)[i]);
    }
    API_CHECK(!dst.empty(), "MXImperativeInvoke: operator " << op->name
                                << ": num_outputs is 0 but outputs is not NULL");
    Imperative::Get()->InvokeOp(Context::CPU(), attrs, in, dst);
  }
  API_END();
}
