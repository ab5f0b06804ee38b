// Tests of TShape sizes (checked, never wrapping) and the numpy-shape switch of Imperative.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <thread>

#include "mxnet/base.h"
#include "mxnet/imperative.h"

namespace mxnet {
namespace {

std::string SizeErrorOf(const TShape& s) {
  try {
    s.Size();
  } catch (const dmlc::Error& e) {
    return e.what();
  }
  return "";
}

TEST(TShapeSize, counts_elements_and_scalars) {
  EXPECT_EQ(TShape({2, 3, 4}).Size(), 24u);
  EXPECT_EQ(TShape(0).Size(), 1u);  // ndim 0: a scalar
  EXPECT_EQ(TShape({2, 3, 4}).ProdShape(1, 3), 12u);
}

TEST(TShapeSize, product_that_overflows_throws_naming_the_shape) {
  const dim_t big = dim_t{1} << 32;
  EXPECT_NE(SizeErrorOf(TShape({big, big})).find("(4294967296,4294967296) is too large"),
            std::string::npos);
  EXPECT_NE(SizeErrorOf(TShape({dim_t{1} << 62, 4})).find("too large"), std::string::npos);
  // 2^63 elements does not fit a signed 64-bit index even though it fits in size_t.
  EXPECT_NE(SizeErrorOf(TShape({dim_t{1} << 62, 2})).find("too large"), std::string::npos);
  EXPECT_EQ(TShape({dim_t{1} << 62, 1}).Size(), uint64_t{1} << 62);
}

TEST(TShapeSize, zero_dim_makes_size_zero_even_after_huge_dims) {
  const dim_t big = dim_t{1} << 40;
  EXPECT_EQ(TShape({big, big, 0}).Size(), 0u);
  EXPECT_EQ(TShape({0, big, big}).Size(), 0u);
}

TEST(TShapeSize, unknown_dim_throws) {
  EXPECT_NE(SizeErrorOf(TShape({2, -1})).find("unknown dim"), std::string::npos);
}

TEST(NumpyShape, thread_local_switch_stays_in_its_thread) {
  Imperative* imp = Imperative::Get();
  imp->set_is_np_shape(kNumpyShapeOff);
  EXPECT_EQ(imp->set_is_np_shape(kNumpyShapeThreadLocalOn), 0);
  EXPECT_EQ(imp->is_np_shape(), kNumpyShapeThreadLocalOn);
  int other = -1;
  std::thread([&] { other = Imperative::Get()->is_np_shape(); }).join();
  EXPECT_EQ(other, kNumpyShapeOff);
  EXPECT_EQ(imp->set_is_np_shape(kNumpyShapeOff), 1);
  EXPECT_EQ(imp->is_np_shape(), kNumpyShapeOff);
}

TEST(NumpyShape, global_switch_reaches_other_threads_until_turned_off) {
  Imperative* imp = Imperative::Get();
  imp->set_is_np_shape(kNumpyShapeGlobalOn);
  int other = -1;
  std::thread([&] { other = Imperative::Get()->is_np_shape(); }).join();
  EXPECT_EQ(other, kNumpyShapeGlobalOn);
  imp->set_is_np_shape(kNumpyShapeOff);
  std::thread([&] { other = Imperative::Get()->is_np_shape(); }).join();
  EXPECT_EQ(other, kNumpyShapeOff);
  EXPECT_THROW(imp->set_is_np_shape(3), dmlc::Error);
}

}  // namespace
}  // namespace mxnet
