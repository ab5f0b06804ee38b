// C API, symbols: creating, composing, naming, listing, attributes and JSON (MXSymbol*).
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "c_api/c_api_common.h"
#include "nnvm/graph_edit.h"
#include "nnvm/graph_json.h"
#include "nnvm/op.h"
#include "nnvm/symbol.h"

namespace mxnet {
namespace c_api {
namespace {

nnvm::Symbol* SymbolFromHandle(SymbolHandle h, const char* fn, const char* arg) {
  if (h == nullptr) Fail(std::string(fn) + ": argument " + arg + " is NULL (expected a SymbolHandle)");
  return static_cast<nnvm::Symbol*>(h);
}

/*! \brief Thread-local storage behind the strings and arrays the functions hand out. */
struct SymbolReturn {
  std::string str;
  std::vector<std::string> strs;
  std::vector<const char*> ptrs;
  std::vector<void*> handles;

  const char** SetStrings(std::vector<std::string> v) {
    strs = std::move(v);
    ptrs.clear();
    for (const std::string& s : strs) ptrs.push_back(s.c_str());
    return ptrs.data();
  }
};

SymbolReturn& Ret() {
  thread_local SymbolReturn r;
  return r;
}

/*! \brief Hand a new symbol to the caller (it frees it with MXSymbolFree). */
void Give(nnvm::Symbol&& s, SymbolHandle* out) {
  *out = new nnvm::Symbol(std::move(s));  // NOLINT: ownership goes to the C caller
}

std::string ReadFile(const char* fname) {
  std::ifstream is(fname, std::ios::binary);
  if (!is) Fail(std::string("cannot open symbol file ") + fname + " for reading");
  std::ostringstream os;
  os << is.rdbuf();
  return os.str();
}

}  // namespace
}  // namespace c_api
}  // namespace mxnet

using namespace mxnet;  // NOLINT(build/namespaces)
using mxnet::c_api::Give;
using mxnet::c_api::Ret;

#define API_SYMBOL(h) ::mxnet::c_api::SymbolFromHandle((h), __func__, #h)

int MXSymbolListAtomicSymbolCreators(uint32_t* out_size, AtomicSymbolCreator** out_array) {
  API_BEGIN();
  API_NOT_NULL(out_size);
  API_NOT_NULL(out_array);
  auto& r = Ret();
  r.handles.clear();
  for (const std::string& name : nnvm::Op::ListAllNames()) {
    const nnvm::Op* op = nnvm::Op::Get(name);
    if (op->name == name) r.handles.push_back(const_cast<nnvm::Op*>(op));  // aliases once
  }
  *out_size = static_cast<uint32_t>(r.handles.size());
  *out_array = r.handles.data();
  API_END();
}

int MXSymbolGetAtomicSymbolName(AtomicSymbolCreator creator, const char** name) {
  API_BEGIN();
  API_NOT_NULL(name);
  *name = c_api::OpFromHandle(creator, __func__)->name.c_str();
  API_END();
}

int MXSymbolCreateAtomicSymbol(AtomicSymbolCreator creator, uint32_t num_param, const char** keys,
                               const char** vals, SymbolHandle* out) {
  API_BEGIN();
  const nnvm::Op* op = c_api::OpFromHandle(creator, __func__);
  API_NOT_NULL(out);
  API_CHECK(num_param == 0 || (keys != nullptr && vals != nullptr),
            __func__ << ": operator " << op->name << ": keys or vals is NULL but num_param is "
                     << num_param);
  std::vector<std::pair<std::string, std::string>> kwargs;
  for (uint32_t i = 0; i < num_param; ++i) {
    API_CHECK(keys[i] != nullptr && vals[i] != nullptr,
              __func__ << ": operator " << op->name << ": parameter " << i << " is NULL");
    kwargs.emplace_back(keys[i], vals[i]);
  }
  Give(nnvm::CreateAtomicSymbol(op, kwargs), out);
  API_END();
}

int MXSymbolCreateVariable(const char* name, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(name);
  API_NOT_NULL(out);
  Give(nnvm::Symbol::CreateVariable(name), out);
  API_END();
}

int MXSymbolCreateGroup(uint32_t num_symbols, SymbolHandle* symbols, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_CHECK(num_symbols == 0 || symbols != nullptr, __func__ << ": symbols is NULL");
  std::vector<nnvm::Symbol> parts;
  for (uint32_t i = 0; i < num_symbols; ++i) parts.push_back(*API_SYMBOL(symbols[i]));
  Give(nnvm::Symbol::CreateGroup(parts), out);
  API_END();
}

int MXSymbolCreateFromFile(const char* fname, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(fname);
  API_NOT_NULL(out);
  Give(nnvm::LoadJSON(c_api::ReadFile(fname)), out);
  API_END();
}

int MXSymbolCreateFromJSON(const char* json, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(json);
  API_NOT_NULL(out);
  Give(nnvm::LoadJSON(json), out);
  API_END();
}

int MXSymbolRemoveAmpCast(SymbolHandle sym_handle, SymbolHandle* ret_sym_handle) {
  API_BEGIN();
  API_NOT_NULL(ret_sym_handle);
  // No pass here inserts amp_cast nodes, so the graph is returned as a copy.
  Give(API_SYMBOL(sym_handle)->Copy(), ret_sym_handle);
  API_END();
}

int MXSymbolSaveToFile(SymbolHandle symbol, const char* fname) {
  API_BEGIN();
  API_NOT_NULL(fname);
  std::string json = nnvm::SaveJSON(API_SYMBOL(symbol)->outputs);
  std::ofstream os(fname, std::ios::binary);
  API_CHECK(os.good(), __func__ << ": cannot open " << fname << " for writing");
  os << json;
  API_CHECK(os.good(), __func__ << ": error writing " << fname);
  API_END();
}

int MXSymbolSaveToJSON(SymbolHandle symbol, const char** out_json) {
  API_BEGIN();
  API_NOT_NULL(out_json);
  auto& r = Ret();
  r.str = nnvm::SaveJSON(API_SYMBOL(symbol)->outputs);
  *out_json = r.str.c_str();
  API_END();
}

int MXSymbolFree(SymbolHandle symbol) {
  API_BEGIN();
  delete static_cast<nnvm::Symbol*>(symbol);  // NOLINT: handles are owned by the C caller
  API_END();
}

int MXSymbolCopy(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  Give(API_SYMBOL(symbol)->Copy(), out);
  API_END();
}

int MXShallowCopySymbol(SymbolHandle src, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  Give(nnvm::Symbol(*API_SYMBOL(src)), out);
  API_END();
}

int MXGenAtomicSymbolFromSymbol(SymbolHandle sym_handle, SymbolHandle* ret_sym_handle) {
  API_BEGIN();
  API_NOT_NULL(ret_sym_handle);
  Give(nnvm::GenAtomicSymbol(*API_SYMBOL(sym_handle)), ret_sym_handle);
  API_END();
}

int MXSymbolPrint(SymbolHandle symbol, const char** out_str) {
  API_BEGIN();
  API_NOT_NULL(out_str);
  std::ostringstream os;
  API_SYMBOL(symbol)->Print(os);
  auto& r = Ret();
  r.str = os.str();
  *out_str = r.str.c_str();
  API_END();
}

int MXSymbolGetName(SymbolHandle symbol, const char** out, int* success) {
  API_BEGIN();
  API_NOT_NULL(out);
  API_NOT_NULL(success);
  auto& r = Ret();
  *success = API_SYMBOL(symbol)->GetAttr("name", &r.str) ? 1 : 0;
  *out = *success ? r.str.c_str() : nullptr;
  API_END();
}

int MXSymbolGetAttr(SymbolHandle symbol, const char* key, const char** out, int* success) {
  API_BEGIN();
  API_NOT_NULL(key);
  API_NOT_NULL(out);
  API_NOT_NULL(success);
  auto& r = Ret();
  *success = nnvm::GetFrontAttr(*API_SYMBOL(symbol), key, &r.str) ? 1 : 0;
  *out = *success ? r.str.c_str() : nullptr;
  API_END();
}

int MXSymbolSetAttr(SymbolHandle symbol, const char* key, const char* value) {
  API_BEGIN();
  API_NOT_NULL(key);
  API_NOT_NULL(value);
  nnvm::SetFrontAttr(API_SYMBOL(symbol), key, value);
  API_END();
}

namespace {
int ListAttrImpl(SymbolHandle symbol, bool recursive, uint32_t* out_size, const char*** out,
                 const char* fn) {
  API_BEGIN();
  API_CHECK(out_size != nullptr && out != nullptr, fn << ": out_size or out is NULL");
  std::vector<std::string> flat;
  for (auto& kv : nnvm::ListFrontAttrs(*c_api::SymbolFromHandle(symbol, fn, "symbol"), recursive)) {
    flat.push_back(std::move(kv.first));
    flat.push_back(std::move(kv.second));
  }
  *out_size = static_cast<uint32_t>(flat.size() / 2);
  *out = Ret().SetStrings(std::move(flat));
  API_END();
}

int ListNames(std::vector<std::string> names, uint32_t* out_size, const char*** out) {
  API_BEGIN();
  API_NOT_NULL(out_size);
  API_NOT_NULL(out);
  *out_size = static_cast<uint32_t>(names.size());
  *out = Ret().SetStrings(std::move(names));
  API_END();
}
}  // namespace

int MXSymbolListAttr(SymbolHandle symbol, uint32_t* out_size, const char*** out) {
  return ListAttrImpl(symbol, true, out_size, out, __func__);
}

int MXSymbolListAttrShallow(SymbolHandle symbol, uint32_t* out_size, const char*** out) {
  return ListAttrImpl(symbol, false, out_size, out, __func__);
}

int MXSymbolListArguments(SymbolHandle symbol, uint32_t* out_size, const char*** out_str_array) {
  API_BEGIN();
  return ListNames(API_SYMBOL(symbol)->ListInputNames(nnvm::Symbol::kReadOnlyArgs), out_size,
                   out_str_array);
  API_END();
}

int MXSymbolListAuxiliaryStates(SymbolHandle symbol, uint32_t* out_size,
                                const char*** out_str_array) {
  API_BEGIN();
  return ListNames(API_SYMBOL(symbol)->ListInputNames(nnvm::Symbol::kAuxiliaryStates), out_size,
                   out_str_array);
  API_END();
}

int NNSymbolListInputNames(SymbolHandle symbol, int option, uint32_t* out_size,
                           const char*** out_str_array) {
  API_BEGIN();
  API_CHECK(option >= 0 && option <= 2,
            __func__ << ": option must be 0 (all), 1 (arguments) or 2 (auxiliary states), given "
                     << option);
  return ListNames(API_SYMBOL(symbol)->ListInputNames(
                       static_cast<nnvm::Symbol::ListInputOption>(option)),
                   out_size, out_str_array);
  API_END();
}

int MXSymbolListOutputs(SymbolHandle symbol, uint32_t* out_size, const char*** out_str_array) {
  API_BEGIN();
  return ListNames(API_SYMBOL(symbol)->ListOutputNames(), out_size, out_str_array);
  API_END();
}

int MXSymbolGetNumOutputs(SymbolHandle symbol, uint32_t* output_count) {
  API_BEGIN();
  API_NOT_NULL(output_count);
  *output_count = static_cast<uint32_t>(API_SYMBOL(symbol)->outputs.size());
  API_END();
}

int MXSymbolGetInternals(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  Give(API_SYMBOL(symbol)->GetInternals(), out);
  API_END();
}

int MXSymbolGetChildren(SymbolHandle symbol, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  Give(API_SYMBOL(symbol)->GetChildren(), out);
  API_END();
}

int MXSymbolGetOutput(SymbolHandle symbol, uint32_t index, SymbolHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  Give((*API_SYMBOL(symbol))[index], out);
  API_END();
}

int MXSymbolGetInputSymbols(SymbolHandle sym, SymbolHandle** inputs, int* input_size) {
  API_BEGIN();
  API_NOT_NULL(inputs);
  API_NOT_NULL(input_size);
  auto& r = Ret();
  r.handles.clear();
  for (const nnvm::ObjectPtr& var : API_SYMBOL(sym)->ListInputs(nnvm::Symbol::kAll)) {
    auto* s = new nnvm::Symbol();  // NOLINT: each handle belongs to the caller
    s->outputs.emplace_back(var, 0, 0);
    r.handles.push_back(s);
  }
  *input_size = static_cast<int>(r.handles.size());
  *inputs = r.handles.data();
  API_END();
}

int MXSymbolCutSubgraph(SymbolHandle sym, SymbolHandle** input_symbols, int* input_size) {
  API_BEGIN();
  API_NOT_NULL(input_symbols);
  API_NOT_NULL(input_size);
  auto& r = Ret();
  r.handles.clear();
  for (const nnvm::NodeEntry& e : nnvm::CutSubgraph(*API_SYMBOL(sym))) {
    auto* s = new nnvm::Symbol();  // NOLINT: each handle belongs to the caller
    s->outputs.push_back(e);
    r.handles.push_back(s);
  }
  *input_size = static_cast<int>(r.handles.size());
  *input_symbols = r.handles.data();
  API_END();
}

int MXSymbolCompose(SymbolHandle sym, const char* name, uint32_t num_args, const char** keys,
                    SymbolHandle* args) {
  API_BEGIN();
  nnvm::Symbol* s = API_SYMBOL(sym);
  API_CHECK(num_args == 0 || args != nullptr, __func__ << ": args is NULL but num_args is " << num_args);
  std::vector<const nnvm::Symbol*> pos;
  std::unordered_map<std::string, const nnvm::Symbol*> kw;
  for (uint32_t i = 0; i < num_args; ++i) {
    const nnvm::Symbol* a = API_SYMBOL(args[i]);
    if (keys == nullptr) {
      pos.push_back(a);
    } else {
      API_CHECK(keys[i] != nullptr, __func__ << ": key " << i << " is NULL");
      kw[keys[i]] = a;
    }
  }
  s->Compose(pos, kw, name != nullptr ? name : "");
  API_END();
}
