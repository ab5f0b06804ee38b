// Tests of the data-iterator C API (MXListDataIters ... MXDataIterGetPadNum) as a C program
// uses it: CSVIter over a temporary file, round_batch padding, reset, and a bad file.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "mxnet/c_api.h"

namespace {

DataIterCreator FindIter(const char* wanted) {
  uint32_t n = 0;
  DataIterCreator* creators = nullptr;
  EXPECT_EQ(MXListDataIters(&n, &creators), 0);
  for (uint32_t i = 0; i < n; ++i) {
    const char *name = nullptr, *desc = nullptr;
    uint32_t num_args = 0;
    const char **names = nullptr, **types = nullptr, **descs = nullptr;
    EXPECT_EQ(MXDataIterGetIterInfo(creators[i], &name, &desc, &num_args, &names, &types, &descs),
              0);
    if (std::strcmp(name, wanted) == 0) return creators[i];
  }
  return nullptr;
}

std::vector<float> ToVector(NDArrayHandle h, size_t size) {
  std::vector<float> out(size);
  EXPECT_EQ(MXNDArraySyncCopyToCPU(h, out.data(), size), 0);
  EXPECT_EQ(MXNDArrayFree(h), 0);
  return out;
}

std::string WriteTemp(const char* text) {
  char path[] = "/tmp/mxnet_io_c_api_XXXXXX";
  int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  FILE* f = fdopen(fd, "w");
  std::fputs(text, f);
  std::fclose(f);
  return path;
}

}  // namespace

TEST(IoIterCApi, ListsRegisteredIterators) {
  for (const char* name : {"MNISTIter", "CSVIter", "LibSVMIter"}) {
    EXPECT_NE(FindIter(name), nullptr) << name;
  }
  DataIterCreator csv = FindIter("CSVIter");
  const char *name = nullptr, *desc = nullptr;
  uint32_t num_args = 0;
  const char **names = nullptr, **types = nullptr, **descs = nullptr;
  ASSERT_EQ(MXDataIterGetIterInfo(csv, &name, &desc, &num_args, &names, &types, &descs), 0);
  bool has_batch_size = false;
  for (uint32_t i = 0; i < num_args; ++i) has_batch_size |= !std::strcmp(names[i], "batch_size");
  EXPECT_TRUE(has_batch_size);
}

TEST(IoIterCApi, CSVIterBatchesPadAndReset) {
  std::string path = WriteTemp("1,2\n3,4\n5,6\n");
  const char* keys[] = {"data_csv", "data_shape", "batch_size"};
  const char* vals[] = {path.c_str(), "(2,)", "2"};
  DataIterHandle it = nullptr;
  ASSERT_EQ(MXDataIterCreateIter(FindIter("CSVIter"), 3, keys, vals, &it), 0)
      << MXGetLastError();
  int has = 0, pad = -1;
  ASSERT_EQ(MXDataIterNext(it, &has), 0);
  ASSERT_EQ(has, 1);
  NDArrayHandle data = nullptr;
  ASSERT_EQ(MXDataIterGetData(it, &data), 0);
  EXPECT_EQ(ToVector(data, 4), (std::vector<float>{1, 2, 3, 4}));
  ASSERT_EQ(MXDataIterGetPadNum(it, &pad), 0);
  EXPECT_EQ(pad, 0);
  ASSERT_EQ(MXDataIterNext(it, &has), 0);
  ASSERT_EQ(has, 1);
  ASSERT_EQ(MXDataIterGetData(it, &data), 0);
  EXPECT_EQ(ToVector(data, 4), (std::vector<float>{5, 6, 1, 2}));  // wrapped to the start
  ASSERT_EQ(MXDataIterGetPadNum(it, &pad), 0);
  EXPECT_EQ(pad, 1);
  uint64_t* index = nullptr;
  uint64_t index_size = 0;
  ASSERT_EQ(MXDataIterGetIndex(it, &index, &index_size), 0);
  ASSERT_EQ(index_size, 2u);
  EXPECT_EQ(index[0], 2u);
  EXPECT_EQ(index[1], 0u);
  NDArrayHandle label = nullptr;
  ASSERT_EQ(MXDataIterGetLabel(it, &label), 0);
  EXPECT_EQ(ToVector(label, 2), (std::vector<float>{0, 0}));
  ASSERT_EQ(MXDataIterNext(it, &has), 0);
  EXPECT_EQ(has, 0);
  ASSERT_EQ(MXDataIterBeforeFirst(it), 0);
  ASSERT_EQ(MXDataIterNext(it, &has), 0);
  ASSERT_EQ(has, 1);
  ASSERT_EQ(MXDataIterGetData(it, &data), 0);
  EXPECT_EQ(ToVector(data, 4), (std::vector<float>{3, 4, 5, 6}));  // after the wrapped row
  EXPECT_EQ(MXDataIterFree(it), 0);
  std::remove(path.c_str());
}

TEST(IoIterCApi, BadFileAndHandlesFail) {
  const char* keys[] = {"image", "label"};
  const char* vals[] = {"/nonexistent/images-idx3", "/nonexistent/labels-idx1"};
  DataIterHandle it = nullptr;
  EXPECT_EQ(MXDataIterCreateIter(FindIter("MNISTIter"), 2, keys, vals, &it), -1);
  EXPECT_NE(std::string(MXGetLastError()).find("/nonexistent/images-idx3"), std::string::npos);
  int has = 0;
  EXPECT_EQ(MXDataIterNext(nullptr, &has), -1);
  int dummy = 0;
  EXPECT_EQ(MXDataIterCreateIter(&dummy, 0, nullptr, nullptr, &it), -1);
}
