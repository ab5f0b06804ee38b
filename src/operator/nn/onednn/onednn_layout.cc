// The blocked-layout contract of onednn_layout.h: the block size this machine's oneDNN picks,
// the node marks, and the plain copies a marked node falls back to.
#include "operator/nn/onednn/onednn_layout.h"

#include <cstdlib>
#include <string>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {

const char* const kMarkKey = "__onednn_blocked__";

namespace {

// The channel block oneDNN's convolution picks for its activations on this CPU (16 with
// AVX-512, 8 with AVX2), asked once, for the propagation kind the convolution kernels ask for
// (forward_training: inference asked for would take NHWC kernels); 0 (nothing held blocked)
// when it picks no such layout.
int ProbeBlockSize() {
#if MXNET_USE_ONEDNN
  using dnnl::memory;
  using Tag = memory::format_tag;
  try {
    const memory::dims act{1, 64, 14, 14}, wei{64, 64, 3, 3}, one{1, 1}, zero{0, 0};
    const auto f32 = memory::data_type::f32;
    const memory::desc any_act(act, f32, Tag::any), any_wei(wei, f32, Tag::any);
    const auto prop = dnnl::prop_kind::forward_training;
    const auto alg = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
    dnnl::convolution_forward::primitive_desc pd(CpuEngine(), prop, alg, any_act, any_wei,
                                                 memory::desc(), any_act, one, zero, one, one);
#else
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(prop, alg, any_act, any_wei, memory::desc(), any_act, one,
                                        zero, one, one),
        CpuEngine());
#endif
    if (pd.dst_desc() == memory::desc(act, f32, Tag::aBcd16b)) return 16;
    if (pd.dst_desc() == memory::desc(act, f32, Tag::aBcd8b)) return 8;
  } catch (const dnnl::error&) {
  }
#endif
  return 0;
}

}  // namespace

int BlockSize() {
  static const int block = ProbeBlockSize();
  return block;
}

bool BlockedShape(const TShape& shape, int dtype) {
  const int b = BlockSize();
  return b > 0 && dtype == kFloat32 && shape.ndim() == 4 && shape[1] > 0 && shape[1] % b == 0;
}

std::vector<LayoutGroup> ElementwiseLayoutGroups(const nnvm::NodeAttrs& attrs) {
  const nnvm::Op& op = *attrs.op;
  const uint32_t n_in = op.get_num_inputs ? op.get_num_inputs(attrs) : op.num_inputs;
  const uint32_t n_out = op.get_num_outputs ? op.get_num_outputs(attrs) : op.num_outputs;
  LayoutGroup all;
  for (uint32_t i = 0; i < n_in; ++i) all.inputs.push_back(i);
  for (uint32_t i = 0; i < n_out; ++i) all.outputs.push_back(i);
  return {all};
}

LayoutMarks MarksOf(const nnvm::NodeAttrs& attrs) {
  LayoutMarks m;
  auto it = attrs.dict.find(kMarkKey);
  if (it == attrs.dict.end()) return m;
  char* rest = nullptr;
  m.in = std::strtoull(it->second.c_str(), &rest, 10);
  if (rest != nullptr && *rest == ',') m.out = std::strtoull(rest + 1, nullptr, 10);
  return m;
}

nnvm::NodeAttrs WithMarks(const nnvm::NodeAttrs& attrs, const LayoutMarks& m) {
  nnvm::NodeAttrs marked = attrs;
  if (m.any()) {
    marked.dict[kMarkKey] = std::to_string(m.in) + "," + std::to_string(m.out);
  } else {
    marked.dict.erase(kMarkKey);
  }
  return marked;
}

bool BlockedIn(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in, uint32_t i) {
  return i < 64 && i < in.size() && (MarksOf(attrs).in >> i & 1) &&
         BlockedShape(in[i].shape_, in[i].type_flag_);
}

bool BlockedOut(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& out, uint32_t i) {
  return i < 64 && i < out.size() && (MarksOf(attrs).out >> i & 1) &&
         BlockedShape(out[i].shape_, out[i].type_flag_);
}

bool AnyBlocked(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in,
                const std::vector<TBlob>& out) {
  if (!MarksOf(attrs).any()) return false;
  for (uint32_t i = 0; i < in.size(); ++i) {
    if (BlockedIn(attrs, in, i)) return true;
  }
  for (uint32_t i = 0; i < out.size(); ++i) {
    if (BlockedOut(attrs, out, i)) return true;
  }
  return false;
}

std::string ActsKey(const BlockedActs& a) {
  if (!a.src && !a.dst && !a.diff_src && !a.diff_dst) return std::string();
  return std::string(" b") + (a.src ? "s" : "") + (a.dst ? "d" : "") + (a.diff_src ? "S" : "") +
         (a.diff_dst ? "D" : "");
}

namespace {

// Calls f(plain offset, blocked offset) for every element of an (N, C, H, W) value.
template <typename F>
void ForEachElement(const TShape& s, F f) {
  const index_t b = BlockSize(), n = s[0], c = s[1], hw = s[2] * s[3];
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = 0; k < c; ++k) {
      const index_t plain = (i * c + k) * hw;
      const index_t blocked = (i * c + k - k % b) * hw + k % b;
      for (index_t p = 0; p < hw; ++p) f(plain + p, blocked + p * b);
    }
  }
}

}  // namespace

void ToBlocked(const TShape& shape, const float* plain, float* blocked) {
  ForEachElement(shape, [&](index_t p, index_t b) { blocked[b] = plain[p]; });
}

void ToPlain(const TShape& shape, const float* blocked, float* plain) {
  ForEachElement(shape, [&](index_t p, index_t b) { plain[p] = blocked[b]; });
}

void OnPlainCopies(const nnvm::NodeAttrs& attrs, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                   const std::function<void(const std::vector<TBlob>&,
                                            const std::vector<OpReqType>&,
                                            const std::vector<TBlob>&)>& kernel) {
  std::vector<std::vector<float>> copies;
  copies.reserve(in.size() + out.size());
  auto plain_copy = [&copies](const TBlob& b, bool fill) {
    copies.emplace_back(b.Size());
    if (fill) ToPlain(b.shape_, b.dptr<float>(), copies.back().data());
    return TBlob(copies.back().data(), b.shape_, b.type_flag_, b.ctx);
  };
  std::vector<TBlob> plain_in(in), plain_out(out);
  for (uint32_t i = 0; i < in.size(); ++i) {
    if (BlockedIn(attrs, in, i)) plain_in[i] = plain_copy(in[i], true);
  }
  for (uint32_t i = 0; i < out.size(); ++i) {
    // An output written in place over an input, or added to, starts from its content.
    if (BlockedOut(attrs, out, i)) plain_out[i] = plain_copy(out[i], req[i] != kWriteTo);
  }
  kernel(plain_in, req, plain_out);
  for (uint32_t i = 0; i < out.size(); ++i) {
    if (BlockedOut(attrs, out, i) && req[i] != kNullOp) {
      ToBlocked(out[i].shape_, plain_out[i].dptr<float>(), out[i].dptr<float>());
    }
  }
}

#if MXNET_USE_ONEDNN
dnnl::memory::desc BlockedF32(const dnnl::memory::dims& dims) {
  using Tag = dnnl::memory::format_tag;
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32,
                            BlockSize() == 8 ? Tag::aBcd8b : Tag::aBcd16b);
}
#endif

}  // namespace onednn
}  // namespace op
}  // namespace mxnet
