// C API, autograd: recording/training switches, marking variables, backward.
#include <memory>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/imperative.h"

using namespace mxnet;  // NOLINT(build/namespaces)

int MXAutogradSetIsRecording(int is_recording, int* prev) {
  API_BEGIN();
  bool old = Imperative::Get()->set_is_recording(is_recording != 0);
  if (prev != nullptr) *prev = old ? 1 : 0;
  API_END();
}

int MXAutogradSetIsTraining(int is_training, int* prev) {
  API_BEGIN();
  bool old = Imperative::Get()->set_is_training(is_training != 0);
  if (prev != nullptr) *prev = old ? 1 : 0;
  API_END();
}

int MXAutogradIsRecording(bool* curr) {
  API_BEGIN();
  API_NOT_NULL(curr);
  *curr = Imperative::Get()->is_recording();
  API_END();
}

int MXAutogradIsTraining(bool* curr) {
  API_BEGIN();
  API_NOT_NULL(curr);
  *curr = Imperative::Get()->is_training();
  API_END();
}

int MXAutogradMarkVariables(mx_uint num_var, NDArrayHandle* var_handles, mx_uint* reqs_array,
                            NDArrayHandle* grad_handles) {
  API_BEGIN();
  if (num_var > 0) {
    API_NOT_NULL(var_handles);
    API_NOT_NULL(reqs_array);
    API_NOT_NULL(grad_handles);
  }
  std::vector<NDArray*> vars(num_var), grads(num_var);
  std::vector<uint32_t> reqs(num_var);
  for (mx_uint i = 0; i < num_var; ++i) {
    API_CHECK(var_handles[i] != nullptr, "MXAutogradMarkVariables: var_handles[" << i << "] is NULL");
    API_CHECK(grad_handles[i] != nullptr,
              "MXAutogradMarkVariables: grad_handles[" << i << "] is NULL");
    vars[i] = static_cast<NDArray*>(var_handles[i]);
    grads[i] = static_cast<NDArray*>(grad_handles[i]);
    API_CHECK(!vars[i]->is_none(), "MXAutogradMarkVariables: variable " << i << " is empty (none)");
    API_CHECK(!grads[i]->is_none(),
              "MXAutogradMarkVariables: gradient buffer " << i << " is empty (none)");
    API_CHECK(vars[i]->shape() == grads[i]->shape(),
              "MXAutogradMarkVariables: variable " << i << " has shape " << vars[i]->shape()
                  << " but its gradient buffer has shape " << grads[i]->shape());
    reqs[i] = reqs_array[i];
    API_CHECK(reqs[i] == kGradNull || reqs[i] == kGradWrite || reqs[i] == kGradAdd,
              "MXAutogradMarkVariables: reqs_array[" << i << "] expected 0 (null), 1 (write) "
                                                      "or 3 (add), given " << reqs[i]);
  }
  Imperative::Get()->MarkVariables(vars, reqs, grads);
  API_END();
}

int MXAutogradBackwardEx(mx_uint num_output, NDArrayHandle* output_handles,
                         NDArrayHandle* ograd_handles, mx_uint num_variables,
                         NDArrayHandle* var_handles, int retain_graph, int create_graph,
                         int is_train, NDArrayHandle** grad_handles, int** grad_stypes) {
  thread_local std::vector<NDArrayHandle> ret_handles;
  thread_local std::vector<int> ret_stypes;
  API_BEGIN();
  API_CHECK(num_output > 0, "MXAutogradBackwardEx: argument num_output must be positive");
  API_NOT_NULL(output_handles);
  std::vector<NDArray*> outputs(num_output), ograds;
  for (mx_uint i = 0; i < num_output; ++i) {
    API_CHECK(output_handles[i] != nullptr,
              "MXAutogradBackwardEx: output_handles[" << i << "] is NULL");
    outputs[i] = static_cast<NDArray*>(output_handles[i]);
  }
  if (ograd_handles != nullptr) {  // NULL entries mean a head gradient of ones
    for (mx_uint i = 0; i < num_output; ++i) ograds.push_back(static_cast<NDArray*>(ograd_handles[i]));
  }
  std::vector<NDArray*> variables(num_variables);
  if (num_variables > 0) {
    API_NOT_NULL(var_handles);
    API_NOT_NULL(grad_handles);
    for (mx_uint i = 0; i < num_variables; ++i) {
      API_CHECK(var_handles[i] != nullptr, "MXAutogradBackwardEx: var_handles[" << i << "] is NULL");
      variables[i] = static_cast<NDArray*>(var_handles[i]);
    }
  }
  std::vector<NDArray> grads = Imperative::Get()->Backward(
      outputs, ograds, variables, is_train != 0, retain_graph != 0, create_graph != 0);
  if (num_variables > 0) {
    ret_handles.clear();
    ret_stypes.clear();
    for (NDArray& g : grads) {
      ret_stypes.push_back(g.storage_type());
      ret_handles.push_back(std::make_unique<NDArray>(std::move(g)).release());
    }
    *grad_handles = ret_handles.data();
    if (grad_stypes != nullptr) *grad_stypes = ret_stypes.data();
  }
  API_END();
}
