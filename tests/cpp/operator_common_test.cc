// Tests of src/operator/operator_common: the size threshold from which CPU loops use OpenMP.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include "common/env.h"
#include "operator/operator_common.h"

namespace mxnet {
namespace op {
namespace {

// Sets the operator-tuning variables for one test and restores a clean environment after.
class ParallelGrainTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const char* name : {"MXNET_USE_OPERATOR_TUNING", "MXNET_ENABLE_OPERATOR_TUNING",
                             "MXNET_USE_NUM_CORES_OPERATOR_TUNING"}) {
      unsetenv(name);
    }
    env::ResetCache();
  }
  static void Set(const char* name, const char* value) {
    setenv(name, value, 1);
    env::ResetCache();
  }
};

TEST_F(ParallelGrainTest, two_cores_go_parallel_from_twice_the_fork_cost) {
  Set("MXNET_USE_NUM_CORES_OPERATOR_TUNING", "2");
  EXPECT_EQ(ParallelGrain(), 2 * kForkCost);
}

TEST_F(ParallelGrainTest, more_cores_lower_the_threshold_towards_the_fork_cost) {
  Set("MXNET_USE_NUM_CORES_OPERATOR_TUNING", "16");
  EXPECT_EQ(ParallelGrain(), (kForkCost * 16 + 14) / 15);  // ceil(16384 * 16 / 15)
  EXPECT_LT(ParallelGrain(), 2 * kForkCost);
  EXPECT_GT(ParallelGrain(), kForkCost);
}

TEST_F(ParallelGrainTest, one_core_never_goes_parallel) {
  Set("MXNET_USE_NUM_CORES_OPERATOR_TUNING", "1");
  EXPECT_GT(ParallelGrain(), std::numeric_limits<index_t>::max() / 16);
}

TEST_F(ParallelGrainTest, tuning_off_makes_every_loop_of_two_elements_parallel) {
  Set("MXNET_USE_NUM_CORES_OPERATOR_TUNING", "2");
  Set("MXNET_USE_OPERATOR_TUNING", "0");
  EXPECT_EQ(ParallelGrain(), 2);
  Set("MXNET_USE_OPERATOR_TUNING", "1");
  Set("MXNET_ENABLE_OPERATOR_TUNING", "0");
  EXPECT_EQ(ParallelGrain(), 2);
}

TEST_F(ParallelGrainTest, loops_run_every_index_once_on_either_side_of_the_threshold) {
  Set("MXNET_USE_OPERATOR_TUNING", "0");
  std::vector<int> hits(1000, 0);
  ParallelFor(static_cast<index_t>(hits.size()), [&](index_t i) { hits[i] += 1; });
  for (int h : hits) EXPECT_EQ(h, 1);
}

}  // namespace
}  // namespace op
}  // namespace mxnet
