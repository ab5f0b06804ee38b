// The C API of custom operators: MXCustomOpRegister, MXNet 1.9's callback lists adapted to
// custom::CustomOpProp / custom::CustomOperator.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "c_api/c_api_common.h"
#include "operator/custom/custom_op.h"

namespace mxnet {
namespace c_api {
namespace {

/*! \brief A callback list the front filled; its delete callback (index 0 in both kinds of
 *  list) runs when the last user lets go of it. */
class CallbackList {
 public:
  CallbackList(const MXCallbackList& list, std::string owner)
      : list_(list), owner_(std::move(owner)) {}
  ~CallbackList() {
    if (Has(0)) reinterpret_cast<CustomOpDelFunc>(list_.callbacks[0])(list_.contexts[0]);
  }
  CallbackList(const CallbackList&) = delete;
  CallbackList& operator=(const CallbackList&) = delete;

  bool Has(int i) const { return i < list_.num_callbacks && list_.callbacks[i] != nullptr; }
  template <typename F>
  F Get(int i, const char* what) const {
    if (!Has(i)) {
      throw dmlc::Error("Custom " + owner_ + ": the front gave no " + what + " callback");
    }
    return reinterpret_cast<F>(list_.callbacks[i]);
  }
  void* Context(int i) const { return list_.contexts[i]; }
  void Check(int ok, const char* what) const {
    if (!ok) throw dmlc::Error("Error in " + owner_ + "." + what + ": the callback failed");
  }

 private:
  MXCallbackList list_;
  std::string owner_;
};

/*! \brief New handles (owned by the callee) for the arrays of one call, with their tags. */
struct HandleList {
  std::vector<void*> ptrs;
  std::vector<int> tags;
  void Add(const std::vector<NDArray>& arrays, int tag) {
    for (const NDArray& a : arrays) {
      ptrs.push_back(std::make_unique<NDArray>(a).release());
      tags.push_back(tag);
    }
  }
};

std::vector<int> ReqInts(const std::vector<OpReqType>& req) {
  return std::vector<int>(req.begin(), req.end());
}

class CApiCustomOperator final : public custom::CustomOperator {
 public:
  explicit CApiCustomOperator(std::shared_ptr<CallbackList> cb) : cb_(std::move(cb)) {}

  void Forward(bool is_train, const std::vector<OpReqType>& req,
               const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
               const std::vector<NDArray>& aux) override {
    HandleList h;
    h.Add(in_data, 0);
    h.Add(out_data, 1);
    h.Add(aux, 4);
    std::vector<int> reqs = ReqInts(req);
    auto f = cb_->Get<CustomOpFBFunc>(kCustomOpForward, "forward");
    cb_->Check(f(static_cast<int>(h.ptrs.size()), h.ptrs.data(), h.tags.data(), reqs.data(),
                 is_train ? 1 : 0, cb_->Context(kCustomOpForward)),
               "forward");
  }

  void Backward(const std::vector<OpReqType>& req, const std::vector<NDArray>& out_grad,
                const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                const std::vector<NDArray>& in_grad, const std::vector<NDArray>& aux) override {
    HandleList h;
    h.Add(out_grad, 3);
    h.Add(in_data, 0);
    h.Add(out_data, 1);
    h.Add(in_grad, 2);
    h.Add(aux, 4);
    std::vector<int> reqs = ReqInts(req);
    auto f = cb_->Get<CustomOpFBFunc>(kCustomOpBackward, "backward");
    cb_->Check(f(static_cast<int>(h.ptrs.size()), h.ptrs.data(), h.tags.data(), reqs.data(), 1,
                 cb_->Context(kCustomOpBackward)),
               "backward");
  }

 private:
  std::shared_ptr<CallbackList> cb_;
};

class CApiCustomOpProp final : public custom::CustomOpProp {
 public:
  CApiCustomOpProp(std::string op_type, std::shared_ptr<CallbackList> cb)
      : op_type_(std::move(op_type)), cb_(std::move(cb)) {}

  std::vector<std::string> ListArguments() override {
    return List(kCustomOpPropListArguments, "list_arguments");
  }
  std::vector<std::string> ListOutputs() override {
    return List(kCustomOpPropListOutputs, "list_outputs");
  }
  std::vector<std::string> ListAuxiliaryStates() override {
    return List(kCustomOpPropListAuxiliaryStates, "list_auxiliary_states");
  }

  bool InferShape(std::vector<TShape>* shapes) override {
    const size_t n = shapes->size();
    std::vector<std::vector<int>> dims(n);
    std::vector<int*> ptrs(n);
    std::vector<int> ndims(n);
    for (size_t i = 0; i < n; ++i) {
      dims[i].assign((*shapes)[i].begin(), (*shapes)[i].end());
      ptrs[i] = dims[i].data();
      ndims[i] = (*shapes)[i].ndim();
    }
    auto f = cb_->Get<CustomOpInferShapeFunc>(kCustomOpPropInferShape, "infer_shape");
    cb_->Check(f(static_cast<int>(n), ndims.data(), ptrs.data(),
                 cb_->Context(kCustomOpPropInferShape)),
               "infer_shape");
    for (size_t i = 0; i < n; ++i) {
      if (ndims[i] < 0) continue;
      (*shapes)[i] = TShape(ptrs[i], ptrs[i] + ndims[i]);
    }
    return true;
  }

  bool InferType(std::vector<int>* types) override {
    if (!cb_->Has(kCustomOpPropInferType)) {  // as MXNet: every array takes one known dtype
      int t = -1;
      for (int x : *types) if (t < 0) t = x;
      for (int& x : *types) if (x < 0) x = t;
      return t >= 0;
    }
    auto f = cb_->Get<CustomOpInferTypeFunc>(kCustomOpPropInferType, "infer_type");
    cb_->Check(f(static_cast<int>(types->size()), types->data(),
                 cb_->Context(kCustomOpPropInferType)),
               "infer_type");
    return true;
  }

  std::vector<int> DeclareBackwardDependency(const std::vector<int>& out_grad,
                                             const std::vector<int>& in_data,
                                             const std::vector<int>& out_data) override {
    int num = 0;
    int* deps = nullptr;
    auto f = cb_->Get<CustomOpBwdDepFunc>(kCustomOpPropDeclareBackwardDependency,
                                          "declare_backward_dependency");
    cb_->Check(f(out_grad.data(), in_data.data(), out_data.data(), &num, &deps,
                 cb_->Context(kCustomOpPropDeclareBackwardDependency)),
               "declare_backward_dependency");
    if (num > 0 && deps == nullptr) {
      throw dmlc::Error("Error in " + op_type_ + ".declare_backward_dependency: " +
                        std::to_string(num) + " ids declared but none given");
    }
    return std::vector<int>(deps, deps + std::max(num, 0));
  }

  std::shared_ptr<custom::CustomOperator> CreateOperator(
      const Context& ctx, const std::vector<TShape>& in_shapes,
      const std::vector<int>& in_types) override {
    std::vector<std::vector<unsigned>> dims(in_shapes.size());
    std::vector<unsigned*> ptrs(in_shapes.size());
    std::vector<int> ndims(in_shapes.size());
    for (size_t i = 0; i < in_shapes.size(); ++i) {
      for (dim_t d : in_shapes[i]) dims[i].push_back(static_cast<unsigned>(d));
      ptrs[i] = dims[i].data();
      ndims[i] = std::max(in_shapes[i].ndim(), 0);
    }
    const std::string ctx_str = std::string(ctx.dev_mask() == Context::kGPU ? "gpu" : "cpu") +
                                "(" + std::to_string(ctx.dev_id) + ")";
    MXCallbackList ret{0, nullptr, nullptr};
    auto f = cb_->Get<CustomOpCreateFunc>(kCustomOpPropCreateOperator, "create_operator");
    cb_->Check(f(ctx_str.c_str(), static_cast<int>(in_shapes.size()), ptrs.data(), ndims.data(),
                 in_types.data(), &ret, cb_->Context(kCustomOpPropCreateOperator)),
               "create_operator");
    return std::make_shared<CApiCustomOperator>(std::make_shared<CallbackList>(ret, op_type_));
  }

 private:
  std::vector<std::string> List(int index, const char* what) {
    char** names = nullptr;
    auto f = cb_->Get<CustomOpListFunc>(index, what);
    cb_->Check(f(&names, cb_->Context(index)), what);
    std::vector<std::string> ret;
    for (char** p = names; p != nullptr && *p != nullptr; ++p) ret.emplace_back(*p);
    return ret;
  }

  std::string op_type_;
  std::shared_ptr<CallbackList> cb_;
};

}  // namespace
}  // namespace c_api
}  // namespace mxnet

using mxnet::c_api::CApiCustomOpProp;
using mxnet::c_api::CallbackList;

int MXCustomOpRegister(const char* op_type, CustomOpPropCreator creator) {
  API_BEGIN();
  API_NOT_NULL(op_type);
  API_CHECK(creator != nullptr, "MXCustomOpRegister: argument creator is NULL");
  mxnet::custom::RegisterCustomOp(
      op_type, [creator](const std::string& type,
                         const std::vector<std::pair<std::string, std::string>>& kwargs) {
        std::vector<const char*> keys, vals;
        for (const auto& kv : kwargs) {
          keys.push_back(kv.first.c_str());
          vals.push_back(kv.second.c_str());
        }
        MXCallbackList ret{0, nullptr, nullptr};
        if (!creator(type.c_str(), static_cast<int>(kwargs.size()), keys.data(), vals.data(),
                     &ret)) {
          throw dmlc::Error("Error in " + type + ": the prop creator failed");
        }
        return std::shared_ptr<mxnet::custom::CustomOpProp>(std::make_shared<CApiCustomOpProp>(
            type, std::make_shared<CallbackList>(ret, type)));
      });
  API_END();
}
