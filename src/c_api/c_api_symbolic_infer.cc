// C API, symbol inference: MXSymbolInferShape* (three index/dim widths, partial or not) and
// MXSymbolInferType(Partial), over the graph passes of nnvm/pass.h.
#include <cstdint>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "mxnet/imperative.h"
#include "nnvm/pass.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace c_api {
namespace {

/*! \brief Thread-local storage behind the returned shape arrays (arguments, outputs, aux). */
template <typename NDim, typename Dim>
struct ShapeReturn {
  std::vector<std::vector<Dim>> dims[3];
  std::vector<const Dim*> data[3];
  std::vector<NDim> ndim[3];
};

template <typename NDim, typename Dim>
ShapeReturn<NDim, Dim>& ShapeStore() {
  thread_local ShapeReturn<NDim, Dim> r;
  return r;
}

std::vector<std::string> KeyList(uint32_t num_args, const char** keys, const char* fn) {
  std::vector<std::string> out;
  if (keys == nullptr) return out;
  for (uint32_t i = 0; i < num_args; ++i) {
    API_CHECK(keys[i] != nullptr, fn << ": key " << i << " is NULL");
    out.emplace_back(keys[i]);
  }
  return out;
}

/*!
 * \brief The body of every MXSymbolInferShape* variant. Known shapes come as CSR (ind_ptr,
 * shape_data) in MXNet's convention of the moment (legacy: 0 is unknown; numpy shape
 * semantics: -1); results go back in the same convention.
 */
template <typename Index, typename InDim, typename Size, typename NDim, typename Dim>
void InferShapeImpl(SymbolHandle sym, uint32_t num_args, const char** keys,
                    const Index* ind_ptr, const InDim* shape_data, Size* in_size,
                    const NDim** in_ndim, const Dim*** in_data, Size* out_size,
                    const NDim** out_ndim, const Dim*** out_data, Size* aux_size,
                    const NDim** aux_ndim, const Dim*** aux_data, int* complete,
                    const char* fn) {
  API_CHECK(sym != nullptr, fn << ": argument sym is NULL (expected a SymbolHandle)");
  API_CHECK(num_args == 0 || (ind_ptr != nullptr && shape_data != nullptr),
            fn << ": arg_ind_ptr or arg_shape_data is NULL but num_args is " << num_args);
  API_CHECK(in_size && in_ndim && in_data && out_size && out_ndim && out_data && aux_size &&
                aux_ndim && aux_data && complete,
            fn << ": an output argument is NULL");
  const auto* s = static_cast<const nnvm::Symbol*>(sym);
  const bool np_shape = Imperative::Get()->is_np_shape() != 0;
  std::vector<TShape> known;
  for (uint32_t i = 0; i < num_args; ++i) {
    API_CHECK(ind_ptr[i + 1] >= ind_ptr[i], fn << ": arg_ind_ptr is not increasing at " << i);
    TShape shape(shape_data + ind_ptr[i], shape_data + ind_ptr[i + 1]);
    known.push_back(np_shape ? shape : nnvm::ShapeFromLegacy(shape));
  }
  auto result = nnvm::InferSymbolShapes(s->outputs, KeyList(num_args, keys, fn), known);
  auto& store = ShapeStore<NDim, Dim>();
  const std::vector<TShape>* parts[3] = {&result.arg, &result.out, &result.aux};
  for (int p = 0; p < 3; ++p) {
    store.dims[p].clear();
    store.ndim[p].clear();
    store.data[p].clear();
    for (const TShape& inferred : *parts[p]) {
      TShape shape = np_shape ? inferred : nnvm::ShapeToLegacy(inferred);
      std::vector<Dim> dims;
      for (int d = 0; d < shape.ndim(); ++d) dims.push_back(static_cast<Dim>(shape[d]));
      store.ndim[p].push_back(static_cast<NDim>(shape.ndim() < 0 ? 0 : shape.ndim()));
      store.dims[p].push_back(std::move(dims));
    }
    for (const auto& dims : store.dims[p]) store.data[p].push_back(dims.data());
  }
  *in_size = static_cast<Size>(result.arg.size());
  *in_ndim = store.ndim[0].data();
  *in_data = store.data[0].data();
  *out_size = static_cast<Size>(result.out.size());
  *out_ndim = store.ndim[1].data();
  *out_data = store.data[1].data();
  *aux_size = static_cast<Size>(result.aux.size());
  *aux_ndim = store.ndim[2].data();
  *aux_data = store.data[2].data();
  *complete = result.complete ? 1 : 0;
}

void InferTypeImpl(SymbolHandle sym, uint32_t num_args, const char** keys, const int* types,
                   uint32_t* in_size, const int** in_data, uint32_t* out_size,
                   const int** out_data, uint32_t* aux_size, const int** aux_data,
                   int* complete, const char* fn) {
  API_CHECK(sym != nullptr, fn << ": argument sym is NULL (expected a SymbolHandle)");
  API_CHECK(num_args == 0 || types != nullptr,
            fn << ": arg_type_data is NULL but num_args is " << num_args);
  API_CHECK(in_size && in_data && out_size && out_data && aux_size && aux_data && complete,
            fn << ": an output argument is NULL");
  const auto* s = static_cast<const nnvm::Symbol*>(sym);
  std::vector<int> known(types, types + num_args);
  thread_local nnvm::SymbolAttrs<int> result;
  result = nnvm::InferSymbolTypes(s->outputs, KeyList(num_args, keys, fn), known);
  *in_size = static_cast<uint32_t>(result.arg.size());
  *in_data = result.arg.data();
  *out_size = static_cast<uint32_t>(result.out.size());
  *out_data = result.out.data();
  *aux_size = static_cast<uint32_t>(result.aux.size());
  *aux_data = result.aux.data();
  *complete = result.complete ? 1 : 0;
}

}  // namespace
}  // namespace c_api
}  // namespace mxnet

using mxnet::c_api::InferShapeImpl;
using mxnet::c_api::InferTypeImpl;

// The partial forms differ only for the caller: a shape left unknown is not an error for
// either (MXNet 1.9.1 returns the shapes it could infer and complete = 0).
#define MXNET_INFER_SHAPE_U32(fn)                                                           \
  int fn(SymbolHandle sym, uint32_t num_args, const char** keys, const uint32_t* arg_ind_ptr, \
         const uint32_t* arg_shape_data, uint32_t* in_shape_size,                            \
         const uint32_t** in_shape_ndim, const uint32_t*** in_shape_data,                     \
         uint32_t* out_shape_size, const uint32_t** out_shape_ndim,                          \
         const uint32_t*** out_shape_data, uint32_t* aux_shape_size,                         \
         const uint32_t** aux_shape_ndim, const uint32_t*** aux_shape_data, int* complete) { \
    API_BEGIN();                                                                             \
    InferShapeImpl(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size,          \
                   in_shape_ndim, in_shape_data, out_shape_size, out_shape_ndim,             \
                   out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete, \
                   #fn);                                                                     \
    API_END();                                                                               \
  }
#define MXNET_INFER_SHAPE_INT(fn)                                                           \
  int fn(SymbolHandle sym, uint32_t num_args, const char** keys, const uint32_t* arg_ind_ptr, \
         const int* arg_shape_data, uint32_t* in_shape_size, const int** in_shape_ndim,      \
         const int*** in_shape_data, uint32_t* out_shape_size, const int** out_shape_ndim,   \
         const int*** out_shape_data, uint32_t* aux_shape_size, const int** aux_shape_ndim,  \
         const int*** aux_shape_data, int* complete) {                                       \
    API_BEGIN();                                                                             \
    InferShapeImpl(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size,          \
                   in_shape_ndim, in_shape_data, out_shape_size, out_shape_ndim,             \
                   out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete, \
                   #fn);                                                                     \
    API_END();                                                                               \
  }
#define MXNET_INFER_SHAPE_I64(fn)                                                           \
  int fn(SymbolHandle sym, uint32_t num_args, const char** keys, const int64_t* arg_ind_ptr,  \
         const int64_t* arg_shape_data, size_t* in_shape_size, const int** in_shape_ndim,    \
         const int64_t*** in_shape_data, size_t* out_shape_size, const int** out_shape_ndim, \
         const int64_t*** out_shape_data, size_t* aux_shape_size,                            \
         const int** aux_shape_ndim, const int64_t*** aux_shape_data, int* complete) {       \
    API_BEGIN();                                                                             \
    InferShapeImpl(sym, num_args, keys, arg_ind_ptr, arg_shape_data, in_shape_size,          \
                   in_shape_ndim, in_shape_data, out_shape_size, out_shape_ndim,             \
                   out_shape_data, aux_shape_size, aux_shape_ndim, aux_shape_data, complete, \
                   #fn);                                                                     \
    API_END();                                                                               \
  }

MXNET_INFER_SHAPE_U32(MXSymbolInferShape)
MXNET_INFER_SHAPE_U32(MXSymbolInferShapePartial)
MXNET_INFER_SHAPE_INT(MXSymbolInferShapeEx)
MXNET_INFER_SHAPE_INT(MXSymbolInferShapePartialEx)
MXNET_INFER_SHAPE_I64(MXSymbolInferShapeEx64)
MXNET_INFER_SHAPE_I64(MXSymbolInferShapePartialEx64)

int MXSymbolInferType(SymbolHandle sym, uint32_t num_args, const char** keys,
                      const int* arg_type_data, uint32_t* in_type_size, const int** in_type_data,
                      uint32_t* out_type_size, const int** out_type_data, uint32_t* aux_type_size,
                      const int** aux_type_data, int* complete) {
  API_BEGIN();
  InferTypeImpl(sym, num_args, keys, arg_type_data, in_type_size, in_type_data, out_type_size,
                out_type_data, aux_type_size, aux_type_data, complete, __func__);
  API_END();
}

int MXSymbolInferTypePartial(SymbolHandle sym, uint32_t num_args, const char** keys,
                             const int* arg_type_data, uint32_t* in_type_size,
                             const int** in_type_data, uint32_t* out_type_size,
                             const int** out_type_data, uint32_t* aux_type_size,
                             const int** aux_type_data, int* complete) {
  API_BEGIN();
  InferTypeImpl(sym, num_args, keys, arg_type_data, in_type_size, in_type_data, out_type_size,
                out_type_data, aux_type_size, aux_type_data, complete, __func__);
  API_END();
}
