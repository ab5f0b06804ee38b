// oneDNN's sgemm for the fused RNN operator, and its per-step product on a matmul with packed
// weights (see onednn_rnn.h). oneDNN's LSTM primitive was measured and not used (docs/perf.md).
// Measured for the forward step (32 x 256 times 256 x 1024, 70 steps, one thread): sgemm
// 21 ms, matmul on weights packed once 15 ms (0.14 ms for the packing).
#include "operator/nn/onednn/onednn_rnn.h"

#include <dmlc/logging.h>

#include <unordered_map>
#include <utility>
#include <vector>

#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {

bool RNNUsesOneDNNGemm() { return onednn::Enabled(); }

void RNNOneDNNSgemm(bool trans_a, bool trans_b, index_t m, index_t n, index_t k, float alpha,
                    const float* a, index_t lda, const float* b, index_t ldb, float beta,
                    float* c, index_t ldc) {
#if MXNET_USE_ONEDNN
  const dnnl_status_t st = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha,
                                      a, lda, b, ldb, beta, c, ldc);
  CHECK_EQ(st, dnnl_success) << "Operator RNN: oneDNN sgemm failed with status " << st;
#else
  LOG(FATAL) << "Operator RNN: oneDNN is not built in";
#endif
}

#if MXNET_USE_ONEDNN && DNNL_VERSION_MAJOR < 3
namespace {

using dnnl::memory;

memory::desc Dense(memory::dim rows, memory::dim cols) {
  return memory::desc({rows, cols}, memory::data_type::f32, memory::dims{cols, 1});
}

dnnl::primitive_attr SumAttr(bool accumulate) {
  dnnl::primitive_attr attr;
  // Each calling thread passes its own scratchpad: the threads run one primitive at once.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (accumulate) {
    dnnl::post_ops ops;
    ops.append_sum(1.f);
    attr.set_post_ops(ops);
  }
  return attr;
}

struct StepState : public RNNStepProduct {
  index_t n{0}, k{0};
  bool accumulate{false};
  int threads{0};  // the OpenMP count the primitives were made for (they fork that many)
  memory::desc packed_md;
  struct Prim {
    index_t rows;
    dnnl::matmul prim;
    memory::desc scratch;
  };
  std::vector<Prim> prims;  // by row count
  std::vector<float> packed;
};

StepState& ThisThreadState() {
  thread_local StepState state;
  return state;
}

}  // namespace

const RNNStepProduct* RNNStepProduct::Prepare(const float* w, index_t n, index_t k,
                                              bool accumulate, const index_t* row_counts,
                                              int count) {
  StepState& st = ThisThreadState();
  try {
    const int threads = onednn::OpenMPThreads();
    if (st.n != n || st.k != k || st.accumulate != accumulate || st.threads != threads) {
      st.prims.clear();
      st.n = n;
      st.k = k;
      st.accumulate = accumulate;
      st.threads = threads;
    }
    for (int i = 0; i < count; ++i) {
      const index_t rows = row_counts[i];
      bool have = false;
      for (const auto& p : st.prims) have = have || p.rows == rows;
      if (have) continue;
      // The first decides the packed layout; the others run on the same packed weights.
      const memory::desc w_md =
          st.prims.empty() ? memory::desc({k, n}, memory::data_type::f32, memory::format_tag::any)
                           : st.packed_md;
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(Dense(rows, k), w_md, Dense(rows, n)),
                                      SumAttr(accumulate), onednn::CpuEngine());
      if (st.prims.empty()) st.packed_md = pd.weights_desc();
      st.prims.push_back({rows, dnnl::matmul(pd), pd.scratchpad_desc()});
    }
    // W (n x k) row-major is W^T (k x n) with strides (1, k).
    const memory::desc wt({k, n}, memory::data_type::f32, memory::dims{1, k});
    st.packed.resize(st.packed_md.get_size() / sizeof(float) + 1);
    memory src = onednn::Wrap(wt, w);
    memory dst(st.packed_md, onednn::CpuEngine(), st.packed.data());
    dnnl::reorder(src, dst).execute(onednn::ThreadStream(), src, dst);
    onednn::ThreadStream().wait();
  } catch (const dnnl::error&) {
    st.prims.clear();
    st.n = 0;
    return nullptr;
  }
  return &st;
}

void RNNStepProduct::Run(index_t rows, const float* a, float* c) const {
  const StepState& st = static_cast<const StepState&>(*this);
  for (const auto& p : st.prims) {
    if (p.rows != rows) continue;
    thread_local std::vector<char> scratch;
    if (scratch.size() < p.scratch.get_size()) scratch.resize(p.scratch.get_size());
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, onednn::Wrap(Dense(rows, st.k), a)},
        {DNNL_ARG_WEIGHTS, memory(st.packed_md, onednn::CpuEngine(),
                                  const_cast<float*>(st.packed.data()))},
        {DNNL_ARG_DST, onednn::Wrap(Dense(rows, st.n), c)},
        {DNNL_ARG_SCRATCHPAD, memory(p.scratch, onednn::CpuEngine(), scratch.data())}};
    p.prim.execute(onednn::ThreadStream(), args);
    onednn::ThreadStream().wait();
    return;
  }
  LOG(FATAL) << "Operator RNN: no step product prepared for " << rows << " rows";
}

#else

const RNNStepProduct* RNNStepProduct::Prepare(const float*, index_t, index_t, bool,
                                              const index_t*, int) {
  return nullptr;
}
void RNNStepProduct::Run(index_t, const float*, float*) const {
  LOG(FATAL) << "Operator RNN: oneDNN is not built in";
}

#endif

}  // namespace op
}  // namespace mxnet
