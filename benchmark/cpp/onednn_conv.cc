// Which oneDNN: forward + backward (data and weights) of one convolution, straight through the
// oneDNN C++ API, as the framework would run it: plain NCHW tensors at the boundary, reordered
// to the primitive's preferred layout on every call (weights once). Builds against oneDNN 2.x
// (Debian's libdnnl-dev) and 3.x (PyPI's onednn-devel) alike.
//
// Build and run (from the repo root):
//   g++ -std=c++17 -O2 benchmark/cpp/onednn_conv.cc -ldnnl -o /tmp/onednn_conv   # Debian 2.x
//   g++ -std=c++17 -O2 -I$VENV/include benchmark/cpp/onednn_conv.cc -L$VENV/lib -ldnnl \
//       -Wl,-rpath,$VENV/lib -o /tmp/onednn_conv3                               # PyPI 3.x
//   /tmp/onednn_conv [C K R]   (default: N=32, C=64 -> K=64, 56x56, 3x3, pad R/2)
// Prints one JSON line: oneDNN version, ms per forward+backward (best of 5), GFLOP/s.
// Never part of pass/fail.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>

#include "oneapi/dnnl/dnnl.hpp"

using dnnl::memory;
using Tag = memory::format_tag;

int main(int argc, char** argv) {
  const int N = 32, H = 56, W = 56;
  int C = 64, K = 64, R = 3;
  if (argc == 4) {
    C = std::atoi(argv[1]);
    K = std::atoi(argv[2]);
    R = std::atoi(argv[3]);
  }
  const memory::dim P = R / 2;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  const memory::dims src_dims{N, C, H, W}, w_dims{K, C, R, R}, dst_dims{N, K, H, W};
  const memory::dims strides{1, 1}, pad{P, P};
  const auto f32 = memory::data_type::f32;
  auto any = [&](const memory::dims& d) { return memory::desc(d, f32, Tag::any); };
  const memory::desc bias_md({K}, f32, Tag::x);
  const auto alg = dnnl::algorithm::convolution_direct;
#if DNNL_VERSION_MAJOR >= 3
  dnnl::convolution_forward::primitive_desc fwd(eng, dnnl::prop_kind::forward_training, alg,
                                                any(src_dims), any(w_dims), bias_md,
                                                any(dst_dims), strides, pad, pad);
  dnnl::convolution_backward_data::primitive_desc bwd_data(
      eng, alg, any(src_dims), any(w_dims), any(dst_dims), strides, pad, pad, fwd);
  dnnl::convolution_backward_weights::primitive_desc bwd_w(
      eng, alg, any(src_dims), any(w_dims), bias_md, any(dst_dims), strides, pad, pad, fwd);
#else
  dnnl::convolution_forward::primitive_desc fwd(
      {dnnl::prop_kind::forward_training, alg, any(src_dims), any(w_dims), bias_md,
       any(dst_dims), strides, pad, pad},
      eng);
  dnnl::convolution_backward_data::primitive_desc bwd_data(
      {alg, any(src_dims), any(w_dims), any(dst_dims), strides, pad, pad}, eng, fwd);
  dnnl::convolution_backward_weights::primitive_desc bwd_w(
      {alg, any(src_dims), any(w_dims), bias_md, any(dst_dims), strides, pad, pad}, eng, fwd);
#endif
  // Plain tensors the framework holds.
  memory src({src_dims, f32, Tag::nchw}, eng), w({w_dims, f32, Tag::oihw}, eng);
  memory bias(bias_md, eng), dst({dst_dims, f32, Tag::nchw}, eng);
  memory diff_dst({dst_dims, f32, Tag::nchw}, eng), diff_src({src_dims, f32, Tag::nchw}, eng);
  memory diff_w({w_dims, f32, Tag::oihw}, eng), diff_bias(bias_md, eng);
  for (memory* m : {&src, &w, &bias, &diff_dst}) {
    float* p = static_cast<float*>(m->get_data_handle());
    const size_t n = m->get_desc().get_size() / sizeof(float);
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 7) * 0.1f;
  }
  // The primitives' layouts; weights are reordered once, activations on every call.
  memory src_f(fwd.src_desc(), eng), w_f(fwd.weights_desc(), eng), dst_f(fwd.dst_desc(), eng);
  memory ddst_d(bwd_data.diff_dst_desc(), eng), w_d(bwd_data.weights_desc(), eng);
  memory dsrc_d(bwd_data.diff_src_desc(), eng);
  memory src_w(bwd_w.src_desc(), eng), ddst_w(bwd_w.diff_dst_desc(), eng);
  memory dw_w(bwd_w.diff_weights_desc(), eng);
  dnnl::reorder(w, w_f).execute(s, w, w_f);
  dnnl::reorder(w, w_d).execute(s, w, w_d);
  dnnl::convolution_forward conv_fwd(fwd);
  dnnl::convolution_backward_data conv_bwd_data(bwd_data);
  dnnl::convolution_backward_weights conv_bwd_w(bwd_w);
  auto step = [&] {
    dnnl::reorder(src, src_f).execute(s, src, src_f);
    conv_fwd.execute(s, {{DNNL_ARG_SRC, src_f}, {DNNL_ARG_WEIGHTS, w_f}, {DNNL_ARG_BIAS, bias},
                         {DNNL_ARG_DST, dst_f}});
    dnnl::reorder(dst_f, dst).execute(s, dst_f, dst);
    dnnl::reorder(diff_dst, ddst_d).execute(s, diff_dst, ddst_d);
    conv_bwd_data.execute(s, {{DNNL_ARG_DIFF_DST, ddst_d}, {DNNL_ARG_WEIGHTS, w_d},
                              {DNNL_ARG_DIFF_SRC, dsrc_d}});
    dnnl::reorder(dsrc_d, diff_src).execute(s, dsrc_d, diff_src);
    dnnl::reorder(src, src_w).execute(s, src, src_w);
    dnnl::reorder(diff_dst, ddst_w).execute(s, diff_dst, ddst_w);
    conv_bwd_w.execute(s, {{DNNL_ARG_SRC, src_w}, {DNNL_ARG_DIFF_DST, ddst_w},
                           {DNNL_ARG_DIFF_WEIGHTS, dw_w}, {DNNL_ARG_DIFF_BIAS, diff_bias}});
    dnnl::reorder(dw_w, diff_w).execute(s, dw_w, diff_w);
    s.wait();
  };
  step();
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    step();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
                              .count());
  }
  const double flops = 3.0 * 2.0 * N * K * C * R * R * H * W;  // fwd, bwd data, bwd weights
  std::printf("{\"bench\":\"onednn_conv\",\"onednn\":\"%d.%d.%d\",\"N\":%d,\"C\":%d,\"K\":%d,"
              "\"R\":%d,\"HW\":%d,\"ms\":%.2f,\"gflops\":%.1f}\n",
              DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR, DNNL_VERSION_PATCH, N, C, K, R, H,
              best * 1e3, flops / best / 1e9);
  return 0;
}
