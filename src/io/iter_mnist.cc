// MNISTIter: MNIST-format idx files (raw or gzipped) read whole into memory.
#include <memory>
#include <string>

#include "io/example_table.h"
#include "io/prefetch_iter.h"

namespace mxnet {
namespace io {
namespace {

struct MNISTParam : public dmlc::Parameter<MNISTParam> {
  std::string image, label;
  int batch_size;
  bool shuffle, flat, silent;
  int seed, num_parts, part_index;
  DMLC_DECLARE_PARAMETER(MNISTParam) {
    DMLC_DECLARE_FIELD(image).set_default("./train-images-idx3-ubyte")
        .describe("Dataset Param: Mnist image path.");
    DMLC_DECLARE_FIELD(label).set_default("./train-labels-idx1-ubyte")
        .describe("Dataset Param: Mnist label path.");
    DMLC_DECLARE_FIELD(batch_size).set_default(128).describe("Batch Param: Batch Size.");
    DMLC_DECLARE_FIELD(shuffle).set_default(true)
        .describe("Augmentation Param: Whether to shuffle data.");
    DMLC_DECLARE_FIELD(flat).set_default(false)
        .describe("Augmentation Param: Whether to flat the data into 1D.");
    DMLC_DECLARE_FIELD(seed).set_default(0).describe("Augmentation Param: Random Seed.");
    DMLC_DECLARE_FIELD(silent).set_default(false)
        .describe("Auxiliary Param: Whether to print out data info.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).describe("partition the data into multiple parts");
    DMLC_DECLARE_FIELD(part_index).set_default(0).describe("the index of the part will read");
  }
};
DMLC_REGISTER_PARAMETER(MNISTParam);

uint32_t ReadBigEndian32(const std::string& bytes, size_t offset) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data()) + offset;
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

/*! \brief The bytes of an idx file after checking its magic number and its size against the
 *  dims in its header; dims receives those dims. */
std::string LoadIdx(const std::string& path, uint32_t magic, int ndim, std::vector<size_t>* dims) {
  std::string bytes = ReadWholeFile(path, "MNISTIter");
  size_t header = 4 + 4 * ndim;
  CHECK_GE(bytes.size(), header) << "MNISTIter: file '" << path << "' is too short ("
                                 << bytes.size() << " bytes) for an idx header";
  CHECK_EQ(ReadBigEndian32(bytes, 0), magic)
      << "MNISTIter: file '" << path << "' does not start with the idx magic number " << magic
      << " (not an MNIST " << (ndim == 3 ? "image" : "label") << " file)";
  size_t total = 1;
  dims->clear();
  for (int i = 0; i < ndim; ++i) {
    dims->push_back(ReadBigEndian32(bytes, 4 + 4 * i));
    total *= dims->back();
  }
  CHECK_EQ(bytes.size() - header, total) << "MNISTIter: file '" << path << "' holds "
                                         << bytes.size() - header << " bytes of values, its "
                                         << "header promises " << total << " (truncated?)";
  return bytes.substr(header);
}

DataIter* CreateMNISTIter(const IterKwargs& kwargs) {
  MNISTParam param;
  PrefetchParam prefetch;
  ParseIterArgs(kwargs, &param, &prefetch);
  CHECK_GT(param.batch_size, 0) << "MNISTIter: batch_size must be > 0, given "
                                << param.batch_size;
  std::vector<size_t> idims, ldims;
  std::string images = LoadIdx(param.image, 2051, 3, &idims);
  std::string labels = LoadIdx(param.label, 2049, 1, &ldims);
  CHECK_EQ(idims[0], ldims[0]) << "MNISTIter: image file '" << param.image << "' has "
                               << idims[0] << " images but label file '" << param.label
                               << "' has " << ldims[0] << " labels";
  ExampleTable table;
  dim_t rows = idims[1], cols = idims[2];
  table.data_shape = param.flat ? TShape{rows * cols} : TShape{1, rows, cols};
  table.label_shape = TShape{1};
  table.num_examples = idims[0];
  table.data.resize(images.size());
  for (size_t i = 0; i < images.size(); ++i) {  // scaled by 1/256 as MXNet 1.9.1 does
    table.data[i] = static_cast<unsigned char>(images[i]) / 256.0;
  }
  table.label.resize(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) table.label[i] = static_cast<unsigned char>(labels[i]);
  table.ids.resize(table.num_examples);
  for (size_t i = 0; i < table.num_examples; ++i) table.ids[i] = i;
  table.KeepPart(param.num_parts, param.part_index, "MNISTIter");
  if (param.shuffle) table.Shuffle(static_cast<unsigned>(param.seed));
  if (!param.silent) {
    LOG(INFO) << "MNISTIter: load " << table.num_examples << " images, shuffle="
              << param.shuffle << ", shape=" << BatchShape(param.batch_size, table.data_shape,
                                                           false);
  }
  auto loader = std::make_unique<TableBatchLoader>(std::move(table), param.batch_size,
                                                   LastBatch::kDiscard);
  return new PrefetchingDataIter(std::move(loader), prefetch.prefetch_buffer,
                                 prefetch.dtype.has_value() ? prefetch.dtype.value() : kFloat32);
}

}  // namespace

MXNET_REGISTER_IO_ITER(MNISTIter)
    .describe("Iterating on the MNIST dataset.\n\nOne can download the dataset from "
              "http://yann.lecun.com/exdb/mnist/ . The idx files may be gzip-compressed.")
    .add_arguments(MNISTParam::__FIELDS__())
    .add_arguments(PrefetchParam::__FIELDS__())
    .set_body(CreateMNISTIter);

}  // namespace io
}  // namespace mxnet
