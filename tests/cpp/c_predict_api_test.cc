// The C predict API on a hand-written -symbol.json (FullyConnected + BatchNorm, with a label
// the params leave out): exact outputs, reshape, partial outputs and forward, NDList, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "mxnet/c_api.h"
#include "mxnet/c_predict_api.h"
#include "mxnet/ndarray.h"

namespace {

using mxnet::NDArray;

// y = SoftmaxOutput(BatchNorm(FullyConnected(data, 2 hidden)), label), as MXNet 1.9.1 writes it.
const char* kJson = R"({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "fc_weight", "inputs": []},
    {"op": "null", "name": "fc_bias", "inputs": []},
    {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "2"},
     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "null", "name": "bn_gamma", "inputs": []},
    {"op": "null", "name": "bn_beta", "inputs": []},
    {"op": "null", "name": "bn_moving_mean", "inputs": []},
    {"op": "null", "name": "bn_moving_var", "inputs": []},
    {"op": "BatchNorm", "name": "bn", "attrs": {"eps": "0.001", "fix_gamma": "False"},
     "inputs": [[3, 0, 0], [4, 0, 0], [5, 0, 0], [6, 0, 1], [7, 0, 1]]},
    {"op": "null", "name": "softmax_label", "inputs": []},
    {"op": "SoftmaxOutput", "name": "softmax", "inputs": [[8, 0, 0], [9, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2, 4, 5, 6, 7, 9],
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13],
  "heads": [[10, 0, 0]],
  "attrs": {"mxnet_version": ["int", 10901]}
})";

NDArray Array(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  NDArray a(mxnet::TShape(shape.begin(), shape.end()), mxnet::Context::CPU());
  a.SyncCopyFromCPU(values.data(), values.size());
  return a;
}

const std::vector<float> kW = {1, 2, 3, -1, 0, 1};  // (2, 3)
const std::vector<float> kB = {0.5f, -0.5f};
const std::vector<float> kGamma = {2, 1}, kBeta = {0, 1}, kMean = {1, -1}, kVar = {4, 0.25f};

std::string Params(bool with_bias = true) {
  std::vector<NDArray> arrays = {Array({2, 3}, kW), Array({2}, kGamma), Array({2}, kBeta),
                                 Array({2}, kMean), Array({2}, kVar)};
  std::vector<std::string> names = {"arg:fc_weight", "arg:bn_gamma", "arg:bn_beta",
                                    "aux:bn_moving_mean", "aux:bn_moving_var"};
  if (with_bias) {
    arrays.push_back(Array({2}, kB));
    names.push_back("arg:fc_bias");
  }
  return mxnet::SaveNDArrayBuffer(arrays, names, 0);
}

// The expected softmax rows for inputs x of shape (n, 3).
std::vector<float> Expected(const std::vector<float>& x) {
  std::vector<float> out;
  for (size_t r = 0; r < x.size() / 3; ++r) {
    double z[2], m = -1e30, sum = 0;
    for (int j = 0; j < 2; ++j) {
      double fc = kB[j];
      for (int k = 0; k < 3; ++k) fc += kW[j * 3 + k] * x[r * 3 + k];
      z[j] = kGamma[j] * (fc - kMean[j]) / std::sqrt(kVar[j] + 0.001) + kBeta[j];
      m = std::max(m, z[j]);
    }
    for (double& v : z) sum += (v = std::exp(v - m));
    for (double v : z) out.push_back(static_cast<float>(v / sum));
  }
  return out;
}

PredictorHandle Create(const std::string& params, uint32_t batch, int* ret = nullptr) {
  const char* keys[] = {"data"};
  uint32_t indptr[] = {0, 2}, shape[] = {batch, 3};
  PredictorHandle h = nullptr;
  int r = MXPredCreate(kJson, params.data(), static_cast<int>(params.size()), 1, 0, 1, keys,
                       indptr, shape, &h);
  if (ret != nullptr) *ret = r;
  return h;
}

std::vector<float> Predict(PredictorHandle h, const std::vector<float>& x) {
  EXPECT_EQ(MXPredSetInput(h, "data", x.data(), static_cast<uint32_t>(x.size())), 0)
      << MXGetLastError();
  EXPECT_EQ(MXPredForward(h), 0) << MXGetLastError();
  std::vector<float> out(x.size() / 3 * 2);
  EXPECT_EQ(MXPredGetOutput(h, 0, out.data(), static_cast<uint32_t>(out.size())), 0)
      << MXGetLastError();
  return out;
}

void ExpectNear(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6) << "at " << i;
}

TEST(CPredictApi, forward_matches_hand_computed_batchnorm_softmax) {
  PredictorHandle h = Create(Params(), 2);
  ASSERT_NE(h, nullptr) << MXGetLastError();
  uint32_t* shape = nullptr;
  uint32_t ndim = 0;
  ASSERT_EQ(MXPredGetOutputShape(h, 0, &shape, &ndim), 0) << MXGetLastError();
  ASSERT_EQ(ndim, 2u);
  EXPECT_EQ(shape[0], 2u);
  EXPECT_EQ(shape[1], 2u);
  int dtype = -1;
  ASSERT_EQ(MXPredGetOutputType(h, 0, &dtype), 0);
  EXPECT_EQ(dtype, 0);
  std::vector<float> x = {1, 0, -1, 0.5f, 2, 1};
  ExpectNear(Predict(h, x), Expected(x));
  EXPECT_EQ(MXPredFree(h), 0);
}

TEST(CPredictApi, reshape_to_a_larger_batch_keeps_the_parameters) {
  PredictorHandle h = Create(Params(), 1);
  ASSERT_NE(h, nullptr) << MXGetLastError();
  const char* keys[] = {"data"};
  uint32_t indptr[] = {0, 2}, shape[] = {3, 3};
  PredictorHandle big = nullptr;
  ASSERT_EQ(MXPredReshape(1, keys, indptr, shape, h, &big), 0) << MXGetLastError();
  std::vector<float> x = {1, 2, 3, -1, -2, -3, 0, 0, 1};
  ExpectNear(Predict(big, x), Expected(x));
  std::vector<float> one = {0, 1, 0};
  ExpectNear(Predict(h, one), Expected(one));
  MXPredFree(big);
  MXPredFree(h);
}

TEST(CPredictApi, partial_out_and_partial_forward) {
  std::string params = Params();
  const char* keys[] = {"data"};
  const char* outs[] = {"fc"};
  uint32_t indptr[] = {0, 2}, shape[] = {1, 3};
  PredictorHandle h = nullptr;
  ASSERT_EQ(MXPredCreatePartialOut(kJson, params.data(), static_cast<int>(params.size()), 1, 0,
                                   1, keys, indptr, shape, 1, outs, &h),
            0)
      << MXGetLastError();
  std::vector<float> x = {1, 1, 1}, out(2);
  ASSERT_EQ(MXPredSetInput(h, "data", x.data(), 3), 0);
  int left = 1, steps = 0;
  while (left != 0) ASSERT_EQ(MXPredPartialForward(h, steps++, &left), 0) << MXGetLastError();
  EXPECT_EQ(steps, 4);  // data, fc_weight, fc_bias, fc: the graph of the partial output
  ASSERT_EQ(MXPredGetOutput(h, 0, out.data(), 2), 0) << MXGetLastError();
  EXPECT_FLOAT_EQ(out[0], 1 + 2 + 3 + 0.5f);
  EXPECT_FLOAT_EQ(out[1], -1 + 0 + 1 - 0.5f);
  MXPredFree(h);
}

TEST(CPredictApi, errors_name_the_key_the_size_and_the_missing_parameter) {
  int ret = 0;
  EXPECT_EQ(Create(Params(false), 1, &ret), nullptr);
  EXPECT_EQ(ret, -1);
  EXPECT_NE(std::string(MXGetLastError()).find("params lack fc_bias"), std::string::npos)
      << MXGetLastError();

  PredictorHandle h = Create(Params(), 1);
  ASSERT_NE(h, nullptr) << MXGetLastError();
  float x[4] = {0, 0, 0, 0};
  EXPECT_EQ(MXPredSetInput(h, "dat", x, 3), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("unknown input key 'dat'"), std::string::npos);
  EXPECT_EQ(MXPredSetInput(h, "data", x, 4), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("(3 elements), given 4 elements"),
            std::string::npos)
      << MXGetLastError();
  EXPECT_EQ(MXPredGetOutput(h, 1, x, 2), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("output index 1 out of range"), std::string::npos);
  MXPredFree(h);

  const char* keys[] = {"data"};
  uint32_t indptr[] = {0, 2}, shape[] = {1, 3};
  std::string params = Params();
  EXPECT_EQ(MXPredCreate("{\"nodes\": [", params.data(), static_cast<int>(params.size()), 1, 0, 1,
                         keys, indptr, shape, &h),
            -1);
  EXPECT_STRNE(MXGetLastError(), "");
}

TEST(CPredictApi, ndlist_gives_keys_shapes_and_float_data) {
  std::vector<NDArray> arrays = {Array({2, 2}, {1, 2, 3, 4}), Array({1}, {-5})};
  std::string bytes = mxnet::SaveNDArrayBuffer(arrays, {"mean", "scale"}, 0);
  NDListHandle list = nullptr;
  uint32_t n = 0;
  ASSERT_EQ(MXNDListCreate(bytes.data(), static_cast<int>(bytes.size()), &list, &n), 0)
      << MXGetLastError();
  ASSERT_EQ(n, 2u);
  const char* key = nullptr;
  const float* data = nullptr;
  const uint32_t* shape = nullptr;
  uint32_t ndim = 0;
  ASSERT_EQ(MXNDListGet(list, 0, &key, &data, &shape, &ndim), 0);
  EXPECT_STREQ(key, "mean");
  ASSERT_EQ(ndim, 2u);
  EXPECT_EQ(shape[0], 2u);
  EXPECT_EQ(data[3], 4.0f);
  ASSERT_EQ(MXNDListGet(list, 1, &key, &data, &shape, &ndim), 0);
  EXPECT_STREQ(key, "scale");
  EXPECT_EQ(data[0], -5.0f);
  EXPECT_EQ(MXNDListGet(list, 2, &key, &data, &shape, &ndim), -1);
  EXPECT_EQ(MXNDListFree(list), 0);
  EXPECT_EQ(MXNDListCreate("garbage!", 8, &list, &n), -1);
}

}  // namespace
