// Tests of the per-thread oneDNN primitive cache: reuse, least-recently-used eviction at the
// MXNET_ONEDNN_CACHE_NUM bound (and its old name), and no caching at 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "common/env.h"
#include "operator/nn/onednn/onednn_base.h"

namespace mxnet {
namespace op {
namespace onednn {
namespace {

#if MXNET_USE_ONEDNN
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
    env::ResetCache();
  }
  ~ScopedEnv() {
    unsetenv(name_);
    env::ResetCache();
  }

 private:
  const char* name_;
};

TEST(OneDNNCacheTest, reuses_entries_and_evicts_the_least_recently_used) {
  ScopedEnv bound("MXNET_ONEDNN_CACHE_NUM", "2");
  PrimitiveCache<int> cache;
  int made = 0;
  auto make = [&] { return ++made; };
  EXPECT_EQ(cache.Get("a", make), 1);
  EXPECT_EQ(cache.Get("b", make), 2);
  EXPECT_EQ(cache.Get("a", make), 1) << "a cached entry is reused";
  EXPECT_EQ(cache.Get("c", make), 3);  // evicts b, the least recently used
  EXPECT_EQ(cache.size(), 2U);
  EXPECT_EQ(cache.Get("a", make), 1);
  EXPECT_EQ(cache.Get("b", make), 4) << "b was evicted and is made again";
}

TEST(OneDNNCacheTest, old_name_bounds_the_cache_and_zero_disables_it) {
  {
    ScopedEnv old_name("MXNET_MKLDNN_CACHE_NUM", "1");
    PrimitiveCache<int> cache;
    int made = 0;
    cache.Get("a", [&] { return ++made; });
    cache.Get("b", [&] { return ++made; });
    EXPECT_EQ(cache.size(), 1U);
  }
  ScopedEnv off("MXNET_ONEDNN_CACHE_NUM", "0");
  PrimitiveCache<int> cache;
  int made = 0;
  cache.Get("a", [&] { return ++made; });
  cache.Get("a", [&] { return ++made; });
  EXPECT_EQ(made, 1) << "the entry of the last call is kept for that call";
  cache.Get("b", [&] { return ++made; });
  cache.Get("a", [&] { return ++made; });
  EXPECT_EQ(made, 3);
  EXPECT_EQ(cache.size(), 1U);
}

TEST(OneDNNCacheTest, enabled_follows_the_variable_and_its_old_name) {
  EXPECT_TRUE(Enabled());
  {
    ScopedEnv off("MXNET_MKLDNN_ENABLED", "0");
    EXPECT_FALSE(Enabled());
    ScopedEnv on("MXNET_ONEDNN_ENABLED", "1");
    EXPECT_TRUE(Enabled()) << "the new name wins when both are set";
  }
  ScopedEnv off("MXNET_ONEDNN_ENABLED", "0");
  EXPECT_FALSE(Enabled());
}
#else
TEST(OneDNNCacheTest, disabled_without_onednn) { EXPECT_FALSE(Enabled()); }
#endif

}  // namespace
}  // namespace onednn
}  // namespace op
}  // namespace mxnet
