// mxnet._ffi: operator listing and invocation, including the NDArray arithmetic fast paths.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "mxnet/imperative.h"
#include "mxnet/op_attr_types.h"
#include "nnvm/op.h"
#include "py_common.h"

namespace mxnet {
namespace {


/*! \brief Text of a Python value as MXNet's front passes kwargs to the C++ parser. */
std::string KwargText(const py::handle& v) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (v.is_none()) return "None";
  if (py::isinstance<py::bool_>(v)) return v.cast<bool>() ? "True" : "False";
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    std::string s = "(";
    size_t i = 0, n = py::len(v);
    for (auto item : v) {
      s += KwargText(item);
      if (++i < n || n == 1) s += ",";
    }
    return s + ")";
  }
  // numpy arrays (shapes, axes): as the nested lists they hold, not numpy's "[ 6 10  2]".
  static py::handle numpy_ndarray = py::object(py::module_::import("numpy").attr("ndarray")).release();
  if (py::isinstance(v, numpy_ndarray)) return KwargText(v.attr("tolist")());
  // numpy dtypes and scalar types: their canonical name.
  if (py::hasattr(v, "__mro__") || py::isinstance(v, py::module_::import("numpy").attr("dtype"))) {
    try {
      return NumpyName(FlagFromNumpy(v));
    } catch (const py::error_already_set&) {
    } catch (const std::exception&) {
    }
  }
  return py::str(v).cast<std::string>();
}

const nnvm::Op* OpFromIndex(uint32_t index) {
  static std::vector<const nnvm::Op*> ops = [] {
    std::vector<const nnvm::Op*> v;
    for (const std::string& name : nnvm::Op::ListAllNames()) {
      const nnvm::Op* op = nnvm::Op::Get(name);
      if (v.size() <= op->index()) v.resize(op->index() + 1, nullptr);
      v[op->index()] = op;
    }
    return v;
  }();
  if (index >= ops.size() || ops[index] == nullptr) throw py::value_error("bad operator handle");
  return ops[index];
}

py::object WrapOutputs(std::vector<NDArray>&& outs, uint32_t n_visible) {
  if (n_visible == 1) return py::cast(std::move(outs[0]));
  py::list l(n_visible);
  for (uint32_t i = 0; i < n_visible; ++i) l[i] = py::cast(std::move(outs[i]));
  return std::move(l);
}

NDArray* CastInput(const nnvm::Op* op, const py::handle& item) {
  if (!py::isinstance<NDArray>(item)) {
    throw py::type_error("Operator " + op->name + ": inputs must be NDArray, given " +
                         py::str(py::type::of(item)).cast<std::string>());
  }
  return item.cast<NDArray*>();
}

/*! \brief Invoke with out= (None, an NDArray or a sequence of them) and wrap the result. */
py::object RunOp(const AttrsPtr& attrs, const std::vector<NDArray*>& in, const py::object& out) {
  MXNET_PY_API("MXImperativeInvokeEx");
  std::vector<NDArray*> out_ptrs;
  if (!out.is_none()) {
    if (py::isinstance<NDArray>(out)) {
      out_ptrs.push_back(out.cast<NDArray*>());
    } else {
      for (auto o : out) out_ptrs.push_back(CastInput(attrs->op, o));
    }
  }
  std::vector<NDArray> outs = Imperative::Get()->InvokeOp(Context::CPU(), attrs, in, out_ptrs);
  if (!out.is_none()) return out;
  return WrapOutputs(std::move(outs), static_cast<uint32_t>(outs.size()));
}

/*! \brief How the generated Python function of an op maps its arguments. */
struct OpSignature {
  std::vector<std::string> array_names;
  std::vector<std::string> param_names;
  std::string num_args_key;
  bool variadic{false};
  bool IsArrayName(const std::string& k) const {
    for (const auto& n : array_names) if (n == k) return true;
    return false;
  }
};

const OpSignature& Signature(const nnvm::Op* op) {
  static std::unordered_map<const nnvm::Op*, OpSignature> cache;
  auto it = cache.find(op);
  if (it != cache.end()) return it->second;
  OpSignature sig;
  for (const auto& a : op->arguments) {
    bool is_array = a.type.rfind("NDArray", 0) == 0 || a.type.rfind("Symbol", 0) == 0;
    (is_array ? sig.array_names : sig.param_names).push_back(a.name);
    if (a.type.rfind("NDArray-or-Symbol[]", 0) == 0) sig.variadic = true;
  }
  sig.variadic = sig.variadic || static_cast<bool>(op->get_num_inputs);
  sig.num_args_key = op->key_var_num_args;
  return cache.emplace(op, std::move(sig)).first->second;
}

}  // namespace

/*! \brief Cached attrs of an op called with no kwargs (the binary fast paths). */
AttrsPtr PlainAttrs(const char* op_name) { return PlainAttrsOf(nnvm::Op::GetOrThrow(op_name)); }

AttrsPtr PlainAttrsOf(const nnvm::Op* op) {
  static std::vector<AttrsPtr> cache;  // by op index
  if (op->index() < cache.size() && cache[op->index()]) return cache[op->index()];
  AttrsPtr a = Imperative::ParseAttrs(op, {});
  if (cache.size() <= op->index()) cache.resize(op->index() + 1);
  cache[op->index()] = a;
  return a;
}

PyObject* CallOp(uint32_t op_index, PyObject* const* args, size_t nargs, PyObject* kwnames) {
  try {
    // Positional NDArrays (or one list of them for variadic ops) are inputs, other positional
    // values fill the op's arguments in order; keywords may name arguments, array inputs, out
    // and name. Doing this here keeps Python-level loops off the per-call path.
    const nnvm::Op* op = OpFromIndex(op_index);
    const OpSignature& sig = Signature(op);
    std::vector<NDArray*> in;
    std::unordered_map<std::string, std::string> kw;
    size_t next_param = 0;
    py::object out = py::none();
    for (size_t i = 0; i < nargs; ++i) {
      py::handle a(args[i]);
      if (py::isinstance<NDArray>(a)) {
        in.push_back(a.cast<NDArray*>());
      } else if (sig.variadic && (py::isinstance<py::list>(a) || py::isinstance<py::tuple>(a)) &&
                 py::len(a) > 0 && py::isinstance<NDArray>(a.cast<py::sequence>()[0])) {
        for (auto item : a) in.push_back(CastInput(op, item));
      } else if (a.is_none() && next_param == 0 && in.size() < sig.array_names.size()) {
        continue;  // an optional array input passed as None
      } else {
        if (next_param >= sig.param_names.size()) {
          throw py::type_error(op->name + "() takes at most " +
                               std::to_string(sig.param_names.size()) +
                               " positional parameters");
        }
        kw.emplace(sig.param_names[next_param++], KwargText(a));
      }
    }
    const size_t nkw = kwnames != nullptr ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0;
    for (size_t i = 0; i < nkw; ++i) {
      std::string key = py::handle(PyTuple_GET_ITEM(kwnames, i)).cast<std::string>();
      py::handle v(args[nargs + i]);
      if (key == "out") {
        out = py::reinterpret_borrow<py::object>(v);
      } else if (key == "name") {
        continue;
      } else if (sig.IsArrayName(key)) {
        if (!v.is_none()) in.push_back(CastInput(op, v));
      } else if (v.is_none() && (key == "ctx" || key == "dtype")) {
        continue;
      } else if (!kw.emplace(key, KwargText(v)).second) {
        throw py::type_error(op->name + "() got multiple values for argument '" + key + "'");
      }
    }
    AttrsPtr attrs = kw.empty() && sig.num_args_key.empty()
                         ? PlainAttrsOf(op)
                         : Imperative::ParseAttrs(op, std::move(kw), static_cast<int>(in.size()));
    return RunOp(attrs, in, out).release().ptr();
  } catch (...) {
    SetPythonErrorFromCurrentException();
    return nullptr;
  }
}

/*! \brief Attrs of a scalar op for one scalar value; recent values are cached per op. */
AttrsPtr ScalarAttrs(const char* op_name, double scalar, bool is_int) {
  // Keyed on (op, bits of the value, is_int): 3 and 3.0 spell different attrs.
  struct Key {
    const char* op;
    uint64_t bits;
    bool is_int;
    bool operator==(const Key& o) const {
      return op == o.op && bits == o.bits && is_int == o.is_int;
    }
  };
  struct Hash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.bits) ^ std::hash<const void*>()(k.op) ^ (k.is_int ? 0x9e37 : 0);
    }
  };
  static std::unordered_map<Key, AttrsPtr, Hash> cache;
  uint64_t bits;
  std::memcpy(&bits, &scalar, sizeof(bits));
  Key key{op_name, bits, is_int};
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  char buf[40];
  if (is_int) std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(scalar));
  else std::snprintf(buf, sizeof(buf), "%.17g", scalar);
  std::unordered_map<std::string, std::string> kw{{"scalar", buf}};
  const nnvm::Op* op = nnvm::Op::GetOrThrow(op_name);
  // MXNet 1.x's front leaves is_int at its default (True), so the array keeps its dtype.
  AttrsPtr a = Imperative::ParseAttrs(op, std::move(kw));
  cache.emplace(key, a);
  return a;
}

NDArray InvokeSingle(const AttrsPtr& attrs, NDArray* a, NDArray* b) {
  MXNET_PY_API("MXImperativeInvokeEx");
  std::vector<NDArray*> in{a};
  if (b != nullptr) in.push_back(b);
  std::vector<NDArray> out;
  Imperative::Get()->Invoke(a->ctx(), attrs, in, &out);
  return std::move(out[0]);
}

void InvokeInto(const AttrsPtr& attrs, NDArray* a, NDArray* b, NDArray* dst) {
  MXNET_PY_API("MXImperativeInvokeEx");
  std::vector<NDArray*> in{a};
  if (b != nullptr) in.push_back(b);
  std::vector<NDArray> out{*dst};
  Imperative::Get()->Invoke(a->ctx(), attrs, in, &out);
  dst->set_entry(out[0].entry());
}

namespace {

/*! \brief Register lhs OP rhs for NDArray and Python-scalar operands (and the in-place form). */
void DefBinary(py::class_<NDArray>& cls, const char* dunder, const char* idunder, const char* rdunder,
               const char* array_op, const char* scalar_op, const char* rscalar_op) {
  cls.def(dunder, [array_op](NDArray& a, NDArray& b) { return InvokeSingle(PlainAttrs(array_op), &a, &b); },
          py::is_operator());
  cls.def(dunder, [scalar_op](NDArray& a, double s) {
    return InvokeSingle(ScalarAttrs(scalar_op, s, false), &a, nullptr);
  }, py::is_operator());
  if (rdunder != nullptr) {
    cls.def(rdunder, [rscalar_op](NDArray& a, double s) {
      return InvokeSingle(ScalarAttrs(rscalar_op, s, false), &a, nullptr);
    }, py::is_operator());
  }
  if (idunder != nullptr) {
    cls.def(idunder, [array_op](NDArray& a, NDArray& b) {
      InvokeInto(PlainAttrs(array_op), &a, &b, &a);
      return a;
    }, py::is_operator());
    cls.def(idunder, [scalar_op](NDArray& a, double s) {
      InvokeInto(ScalarAttrs(scalar_op, s, false), &a, nullptr, &a);
      return a;
    }, py::is_operator());
  }
}

}  // namespace

void DefineInvoke(py::module_& m, py::class_<NDArray>& cls) {
  m.def("list_op_names", [] { return nnvm::Op::ListAllNames(); });
  m.def("op_info", [](const std::string& name) {
    const nnvm::Op* op = nnvm::Op::GetOrThrow(name);
    static const auto& input_names = nnvm::Op::GetAttr<FListInputNames>("FListInputNames");
    py::list args;
    for (const auto& a : op->arguments) args.append(py::make_tuple(a.name, a.type, a.description));
    return py::dict(py::arg("name") = op->name, py::arg("index") = op->index(),
                    py::arg("description") = op->description, py::arg("arguments") = args,
                    py::arg("num_inputs") = op->num_inputs,
                    py::arg("variadic") = static_cast<bool>(op->get_num_inputs),
                    py::arg("key_var_num_args") = op->key_var_num_args,
                    py::arg("num_outputs") = op->num_outputs);
  });
  /*!
   * invoke(op_index, inputs, kwargs, out): run one op. inputs is a sequence of NDArrays,
   * kwargs a dict (or None), out None / NDArray / sequence of NDArrays.
   */
  m.def("invoke", [](uint32_t op_index, const py::sequence& inputs, const py::object& kwargs,
                     const py::object& out) -> py::object {
    // The explicit form: inputs as a sequence, kwargs as a dict.
    const nnvm::Op* op = OpFromIndex(op_index);
    std::unordered_map<std::string, std::string> kw;
    if (!kwargs.is_none()) {
      for (auto item : kwargs.cast<py::dict>()) {
        kw.emplace(item.first.cast<std::string>(), KwargText(item.second));
      }
    }
    std::vector<NDArray*> in;
    in.reserve(py::len(inputs));
    for (auto item : inputs) in.push_back(CastInput(op, item));
    AttrsPtr attrs = kw.empty() && op->key_var_num_args.empty()
                         ? PlainAttrsOf(op)
                         : Imperative::ParseAttrs(op, std::move(kw), static_cast<int>(in.size()));
    return RunOp(attrs, in, out);
  }, py::arg("op"), py::arg("inputs"), py::arg("kwargs") = py::none(), py::arg("out") = py::none());
  m.def("op_index", [](const std::string& name) { return nnvm::Op::GetOrThrow(name)->index(); });
  /*!
   * infer_shape(op_name, input_shapes, kwargs): the output shapes op would give, by its own
   * shape rule (argument errors raise as a call would), without running it. Lets the front
   * build views with an op's result shape (squeeze(inplace=True)) instead of restating the rule.
   */
  m.def("infer_shape", [](const std::string& name, const py::sequence& input_shapes,
                          const py::dict& kwargs) {
    const nnvm::Op* op = nnvm::Op::GetOrThrow(name);
    std::unordered_map<std::string, std::string> kw;
    for (auto item : kwargs) {
      if (!item.second.is_none()) kw.emplace(item.first.cast<std::string>(), KwargText(item.second));
    }
    AttrsPtr attrs = Imperative::ParseAttrs(op, std::move(kw));
    static const auto& infer = nnvm::Op::GetAttr<FInferShape>("FInferShape");
    CHECK(infer.contains(op)) << "Operator " << op->name << " has no shape inference";
    std::vector<TShape> in, out(op->get_num_outputs ? op->get_num_outputs(*attrs) : op->num_outputs);
    for (auto s : input_shapes) {
      std::vector<dim_t> dims;
      for (auto d : s) dims.push_back(d.cast<dim_t>());
      in.emplace_back(dims.begin(), dims.end());
    }
    bool ok = infer[op](*attrs, &in, &out);
    for (const TShape& o : out) ok = ok && o.IsKnown();
    CHECK(ok) << "Operator " << op->name << ": cannot infer the output shape from inputs";
    py::list ret;
    for (const TShape& o : out) {
      py::tuple t(o.ndim());
      for (int i = 0; i < o.ndim(); ++i) t[i] = py::int_(o[i]);
      ret.append(t);
    }
    return ret;
  });
  DefBinary(cls, "__add__", "__iadd__", "__radd__", "broadcast_add", "_plus_scalar", "_plus_scalar");
  DefBinary(cls, "__sub__", "__isub__", "__rsub__", "broadcast_sub", "_minus_scalar", "_rminus_scalar");
  DefBinary(cls, "__mul__", "__imul__", "__rmul__", "broadcast_mul", "_mul_scalar", "_mul_scalar");
  DefBinary(cls, "__truediv__", "__itruediv__", "__rtruediv__", "broadcast_div", "_div_scalar", "_rdiv_scalar");
  DefBinary(cls, "__div__", "__idiv__", "__rdiv__", "broadcast_div", "_div_scalar", "_rdiv_scalar");
  DefBinary(cls, "__mod__", "__imod__", "__rmod__", "broadcast_mod", "_mod_scalar", "_rmod_scalar");
  DefBinary(cls, "__pow__", nullptr, "__rpow__", "broadcast_power", "_power_scalar", "_rpower_scalar");
  DefBinary(cls, "__eq__", nullptr, nullptr, "broadcast_equal", "_equal_scalar", nullptr);
  DefBinary(cls, "__ne__", nullptr, nullptr, "broadcast_not_equal", "_not_equal_scalar", nullptr);
  DefBinary(cls, "__gt__", nullptr, nullptr, "broadcast_greater", "_greater_scalar", nullptr);
  DefBinary(cls, "__ge__", nullptr, nullptr, "broadcast_greater_equal", "_greater_equal_scalar", nullptr);
  DefBinary(cls, "__lt__", nullptr, nullptr, "broadcast_lesser", "_lesser_scalar", nullptr);
  DefBinary(cls, "__le__", nullptr, nullptr, "broadcast_lesser_equal", "_lesser_equal_scalar", nullptr);
  cls.def("__neg__", [](NDArray& a) { return InvokeSingle(PlainAttrs("negative"), &a, nullptr); });
  m.def("invoke_scalar", [](const std::string& op_name, NDArray& a, double s, bool is_int) {
    return InvokeSingle(ScalarAttrs(nnvm::Op::GetOrThrow(op_name)->name.c_str(), s, is_int), &a, nullptr);
  });
}

}  // namespace mxnet
