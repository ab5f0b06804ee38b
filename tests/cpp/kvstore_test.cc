// Tests of the KVStore: 2-bit quantization bit layout and residuals, the threaded CPU sum,
// and MXNet 1.9.1's MXKVStore* C API (local and device stores, updaters, key rules, errors).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/env.h"
#include "kvstore/gradient_compression.h"
#include "mxnet/c_api.h"
#include "mxnet/cuda_config.h"
#include "mxnet/libinfo.h"

namespace {

using mxnet::kvstore::Dequantize2Bit;
using mxnet::kvstore::Quantize2Bit;

NDArrayHandle MakeArray(const std::vector<float>& data, int dev_id = 0) {
  mx_uint shape[1] = {static_cast<mx_uint>(data.size())};
  NDArrayHandle h = nullptr;
  EXPECT_EQ(MXNDArrayCreateEx(shape, 1, 1, dev_id, 0, 0, &h), 0) << MXGetLastError();
  EXPECT_EQ(MXNDArraySyncCopyFromCPU(h, data.data(), data.size()), 0) << MXGetLastError();
  return h;
}

std::vector<float> Read(NDArrayHandle h, size_t n) {
  std::vector<float> out(n);
  EXPECT_EQ(MXNDArraySyncCopyToCPU(h, out.data(), n), 0) << MXGetLastError();
  return out;
}

KVStoreHandle Create(const char* type) {
  KVStoreHandle kv = nullptr;
  EXPECT_EQ(MXKVStoreCreate(type, &kv), 0) << MXGetLastError();
  return kv;
}

TEST(KVStoreQuantize, two_bits_per_element_in_mxnet_order) {
  // 18 elements: two words. Element i of a block sits in byte (i%16)/4, bits from the top.
  std::vector<float> grad = {0.6f, -0.6f, 0.1f, 0.5f, -0.5f, 0, 0, 0,
                             0,    0,     0,    0,    0,     0, 0, 2.0f, 0.7f, -0.9f};
  std::vector<float> residual(grad.size(), 0.f);
  std::vector<float> out(2, 0.f);
  Quantize2Bit(grad.data(), residual.data(), out.data(), grad.size(), 0.5f);
  uint8_t bytes[8];
  std::memcpy(bytes, out.data(), 8);
  // byte 0: +, -, 0, +  -> 11 10 00 11
  EXPECT_EQ(bytes[0], 0xE3);
  // byte 1: -, 0, 0, 0  -> 10 00 00 00
  EXPECT_EQ(bytes[1], 0x80);
  EXPECT_EQ(bytes[2], 0x00);
  // byte 3: element 15 = + in the last two bits
  EXPECT_EQ(bytes[3], 0x03);
  // second word: +, -
  EXPECT_EQ(bytes[4], 0xE0);
  EXPECT_EQ(bytes[5] | bytes[6] | bytes[7], 0);
  // What was not sent stays in the residual.
  EXPECT_FLOAT_EQ(residual[0], 0.1f);
  EXPECT_FLOAT_EQ(residual[1], -0.1f);
  EXPECT_FLOAT_EQ(residual[2], 0.1f);
  EXPECT_FLOAT_EQ(residual[15], 1.5f);
  EXPECT_FLOAT_EQ(residual[17], -0.4f);
}

TEST(KVStoreQuantize, residual_carries_over_and_dequantize_inverts_codes) {
  std::vector<float> grad = {0.3f, -0.3f, 0.2f};
  std::vector<float> residual(3, 0.f), codes(1), back(3);
  Quantize2Bit(grad.data(), residual.data(), codes.data(), 3, 0.5f);
  Dequantize2Bit(codes.data(), back.data(), 3, 0.5f);
  EXPECT_EQ(back, std::vector<float>({0, 0, 0}));
  Quantize2Bit(grad.data(), residual.data(), codes.data(), 3, 0.5f);
  Dequantize2Bit(codes.data(), back.data(), 3, 0.5f);
  EXPECT_EQ(back, std::vector<float>({0.5f, -0.5f, 0}));
  EXPECT_NEAR(residual[0], 0.1f, 1e-7);
  EXPECT_NEAR(residual[2], 0.4f, 1e-7);
}

TEST(KVStoreQuantize, params_are_validated) {
  mxnet::kvstore::GradientCompression gc;
  EXPECT_THROW(gc.SetParams({{"type", "1bit"}}), dmlc::Error);
  EXPECT_THROW(gc.SetParams({{"type", "2bit"}, {"threshold", "0"}}), dmlc::Error);
  EXPECT_THROW(gc.SetParams({{"threshold", "0.5"}}), dmlc::Error);
  gc.SetParams({{"type", "2bit"}, {"threshold", "0.25"}});
  EXPECT_EQ(gc.GetCompressedSize(33), 3);
  mxnet::kvstore::GradientCompression decoded;
  decoded.DecodeParams(gc.EncodeParams());
  EXPECT_EQ(decoded.threshold(), 0.25f);
  EXPECT_TRUE(decoded.type() == mxnet::kvstore::CompressionType::kTwoBit);
}

TEST(KVStoreCAPI, push_sums_values_of_a_key_and_pull_copies_out) {
  for (const char* type : {"local", "device"}) {
    KVStoreHandle kv = Create(type);
    const char* got = nullptr;
    ASSERT_EQ(MXKVStoreGetType(kv, &got), 0);
    EXPECT_STREQ(got, type);
    int keys[3] = {7, 7, 7};
    NDArrayHandle init = MakeArray({0, 0});
    ASSERT_EQ(MXKVStoreInit(kv, 1, keys, &init), 0) << MXGetLastError();
    NDArrayHandle vals[3] = {MakeArray({1, 2}, 0), MakeArray({10, 20}, 1), MakeArray({100, 200}, 2)};
    ASSERT_EQ(MXKVStorePush(kv, 3, keys, vals, 0), 0) << MXGetLastError();
    NDArrayHandle outs[2] = {MakeArray({0, 0}, 0), MakeArray({0, 0}, 1)};
    ASSERT_EQ(MXKVStorePull(kv, 2, keys, outs, 0), 0) << MXGetLastError();
    for (NDArrayHandle o : outs) EXPECT_EQ(Read(o, 2), std::vector<float>({111, 222}));
    for (NDArrayHandle h : {init, vals[0], vals[1], vals[2], outs[0], outs[1]}) MXNDArrayFree(h);
    ASSERT_EQ(MXKVStoreFree(kv), 0);
  }
}

void ScaledAdd(int key, NDArrayHandle recv, NDArrayHandle local, void* handle) {
  const float scale = *static_cast<float*>(handle);
  std::vector<float> r = Read(recv, 2), l = Read(local, 2);
  for (int i = 0; i < 2; ++i) l[i] += scale * r[i] + static_cast<float>(key);
  MXNDArraySyncCopyFromCPU(local, l.data(), 2);
  MXNDArrayFree(recv);
  MXNDArrayFree(local);
}

TEST(KVStoreCAPI, updater_runs_on_the_store_at_each_push) {
  KVStoreHandle kv = Create("local");
  float scale = -0.5f;
  ASSERT_EQ(MXKVStoreSetUpdater(kv, ScaledAdd, &scale), 0) << MXGetLastError();
  int key = 3;
  NDArrayHandle w = MakeArray({1, 1});
  ASSERT_EQ(MXKVStoreInit(kv, 1, &key, &w), 0);
  NDArrayHandle g = MakeArray({2, 4});
  ASSERT_EQ(MXKVStorePush(kv, 1, &key, &g, 0), 0);
  ASSERT_EQ(MXKVStorePush(kv, 1, &key, &g, 0), 0);
  ASSERT_EQ(MXKVStorePull(kv, 1, &key, &w, 0), 0);
  // 1 + 2 * (-0.5 * g + 3)
  EXPECT_EQ(Read(w, 2), std::vector<float>({5, 3}));
  MXNDArrayFree(w);
  MXNDArrayFree(g);
  MXKVStoreFree(kv);
}

TEST(KVStoreCAPI, string_keys_and_key_rules) {
  KVStoreHandle kv = Create("local");
  const char* keys[2] = {"a", "b"};
  NDArrayHandle v[2] = {MakeArray({1}), MakeArray({2})};
  ASSERT_EQ(MXKVStoreInitEx(kv, 2, keys, v), 0) << MXGetLastError();
  EXPECT_EQ(MXKVStoreInitEx(kv, 1, keys, v), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("duplicate init of key a"), std::string::npos);
  int ikey = 1;
  EXPECT_EQ(MXKVStoreInit(kv, 1, &ikey, v), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("Mixed key types"), std::string::npos);
  const char* missing = "zz";
  EXPECT_EQ(MXKVStorePushEx(kv, 1, &missing, v, 0), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("zz"), std::string::npos);
  NDArrayHandle out = MakeArray({0});
  ASSERT_EQ(MXKVStorePullEx(kv, 1, &keys[1], &out, 0), 0);
  EXPECT_EQ(Read(out, 1), std::vector<float>({2}));
  EXPECT_EQ(MXKVStorePullRowSparseEx(kv, 1, &keys[1], &out, &v[0], 0), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("sparse"), std::string::npos);
  for (NDArrayHandle h : {v[0], v[1], out}) MXNDArrayFree(h);
  MXKVStoreFree(kv);
}

TEST(KVStoreCAPI, unavailable_types_fail_with_a_reason) {
  KVStoreHandle kv = nullptr;
  EXPECT_EQ(MXKVStoreCreate("dist_sync", &kv), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("parameter server"), std::string::npos);
  if (!MXNET_USE_NCCL || mxnet::GetGPUCount() == 0) {  // no NCCL in the build, or no GPU
    EXPECT_EQ(MXKVStoreCreate("nccl", &kv), -1);
    EXPECT_NE(std::string(MXGetLastError()).find("nccl"), std::string::npos);
  }
  EXPECT_EQ(MXKVStoreCreate("devcie", &kv), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("unknown type 'devcie'"), std::string::npos);
}

TEST(KVStoreCAPI, one_process_group) {
  KVStoreHandle kv = Create("local_allreduce_cpu");
  int rank = -1, size = -1, dead = -1, worker = -1, server = -1, scheduler = -1;
  ASSERT_EQ(MXKVStoreGetRank(kv, &rank), 0);
  ASSERT_EQ(MXKVStoreGetGroupSize(kv, &size), 0);
  ASSERT_EQ(MXKVStoreGetNumDeadNode(kv, 0, &dead, 1), 0);
  ASSERT_EQ(MXKVStoreIsWorkerNode(&worker), 0);
  ASSERT_EQ(MXKVStoreIsServerNode(&server), 0);
  ASSERT_EQ(MXKVStoreIsSchedulerNode(&scheduler), 0);
  EXPECT_EQ(rank, 0);
  EXPECT_EQ(size, 1);
  EXPECT_EQ(dead, 0);
  EXPECT_EQ(worker, 1);
  EXPECT_EQ(server + scheduler, 0);
  EXPECT_EQ(MXKVStoreBarrier(kv), 0);
  EXPECT_EQ(MXKVStoreSetBarrierBeforeExit(kv, 0), 0);
  EXPECT_EQ(MXKVStoreRunServer(kv, nullptr, nullptr), -1);
  MXKVStoreFree(kv);
}

TEST(KVStoreCAPI, device_store_compresses_each_devices_gradient_with_its_residual) {
  KVStoreHandle kv = Create("device");
  const char* k[2] = {"type", "threshold"};
  const char* v[2] = {"2bit", "0.5"};
  ASSERT_EQ(MXKVStoreSetGradientCompression(kv, 2, k, v), 0) << MXGetLastError();
  int keys[2] = {0, 0};
  NDArrayHandle init = MakeArray({0, 0, 0, 0, 0});
  ASSERT_EQ(MXKVStoreInit(kv, 1, keys, &init), 0);
  std::vector<float> g = {0.3f, 0.6f, -0.7f, 0.1f, -0.2f};
  NDArrayHandle grads[2] = {MakeArray(g, 0), MakeArray(g, 1)};
  // MXNet 1.9.1 gives these three pulls for this script.
  const std::vector<std::vector<float>> expected = {
      {0, 1, -1, 0, 0}, {1, 1, -1, 0, 0}, {0, 1, -1, 0, -1}};
  for (const auto& e : expected) {
    ASSERT_EQ(MXKVStorePush(kv, 2, keys, grads, 0), 0) << MXGetLastError();
    ASSERT_EQ(MXKVStorePull(kv, 1, keys, &init, 0), 0);
    EXPECT_EQ(Read(init, 5), e);
  }
  for (NDArrayHandle h : {init, grads[0], grads[1]}) MXNDArrayFree(h);
  MXKVStoreFree(kv);
}

TEST(KVStoreCAPI, threaded_sum_of_big_arrays_equals_the_sequential_sum) {
  setenv("MXNET_KVSTORE_BIGARRAY_BOUND", "100", 1);
  setenv("MXNET_KVSTORE_REDUCTION_NTHREADS", "3", 1);
  mxnet::env::ResetCache();
  KVStoreHandle kv = Create("local");
  const size_t n = 10007;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<std::vector<float>> data(6, std::vector<float>(n));
  for (auto& d : data) for (float& x : d) x = dist(rng);
  std::vector<NDArrayHandle> vals;
  for (auto& d : data) vals.push_back(MakeArray(d));
  std::vector<int> keys(vals.size(), 1);
  NDArrayHandle out = MakeArray(std::vector<float>(n, 0));
  ASSERT_EQ(MXKVStoreInit(kv, 1, keys.data(), &out), 0);
  ASSERT_EQ(MXKVStorePush(kv, vals.size(), keys.data(), vals.data(), 0), 0);
  ASSERT_EQ(MXKVStorePull(kv, 1, keys.data(), &out, 0), 0);
  std::vector<float> got = Read(out, n);
  for (size_t i = 0; i < n; ++i) {
    // MXNet's order: d0 + (((d1 + d2) + d3) + d4), then + d5.
    float e = data[0][i] + (((data[1][i] + data[2][i]) + data[3][i]) + data[4][i]);
    e = e + data[5][i];
    ASSERT_EQ(got[i], e) << i;
  }
  for (NDArrayHandle h : vals) MXNDArrayFree(h);
  MXNDArrayFree(out);
  MXKVStoreFree(kv);
  unsetenv("MXNET_KVSTORE_BIGARRAY_BOUND");
  unsetenv("MXNET_KVSTORE_REDUCTION_NTHREADS");
  mxnet::env::ResetCache();
}

}  // namespace
