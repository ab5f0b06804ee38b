// Reusing another registered op's rules: an attribute function that forwards to the one the
// base op declares, for thin variants (Convolution_v1 of Convolution) and ops whose forward is
// another op's (MakeLoss's is _copy's).
#ifndef MXNET_OPERATOR_NN_OP_VARIANT_H_
#define MXNET_OPERATOR_NN_OP_VARIANT_H_

#include <memory>
#include <mutex>
#include <utility>

#include "operator/operator_common.h"

namespace mxnet {
namespace op {

/*! \brief The base op's attribute `key`, looked up once, on first use (registration is over
 *  by then, whatever the order the files registered in). */
template <typename F>
class BaseAttr {
 public:
  BaseAttr(const char* base, const char* key) : base_(base), key_(key) {}
  const F& get() const {
    std::call_once(state_->once, [this] {
      state_->fn = nnvm::Op::GetAttr<F>(key_)[nnvm::Op::GetOrThrow(base_)];
    });
    return state_->fn;
  }

 private:
  struct State {
    std::once_flag once;
    F fn;
  };
  const char* base_;
  const char* key_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

/*! \brief An F that calls the base op's attribute `key`. */
template <typename F>
F Delegate(const char* base, const char* key) {
  return [attr = BaseAttr<F>(base, key)](auto&&... args) {
    return attr.get()(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace op
}  // namespace mxnet

#endif  // MXNET_OPERATOR_NN_OP_VARIANT_H_
