// ExampleTable: a whole data set in host memory (one row of values per example), and the
// loader that cuts it into batches the way MXNet 1.9.1's batch loader does.
#ifndef MXNET_IO_EXAMPLE_TABLE_H_
#define MXNET_IO_EXAMPLE_TABLE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "io/iter_registry.h"

namespace mxnet {
namespace io {

struct ExampleTable {
  TShape data_shape;   // of one example
  TShape label_shape;  // of one example; (1,) gives a label vector per batch
  std::vector<double> data;
  std::vector<double> label;
  size_t num_examples = 0;
  std::vector<uint64_t> ids;  // index reported for each example (its row in the files)

  size_t DataSize() const { return data_shape.Size(); }
  size_t LabelSize() const { return label_shape.Size(); }
  /*! \brief Keep only rows [n*part/parts, n*(part+1)/parts). */
  void KeepPart(int num_parts, int part_index, const char* iter_name);
  /*! \brief Keep only rows [begin, end). */
  void KeepRows(size_t begin, size_t end);
  /*! \brief Reorder rows with a seeded permutation. */
  void Shuffle(unsigned seed);
};

/*! \brief How the last, incomplete batch of an epoch is handled. */
enum class LastBatch {
  kRoundRobin,  // fill from the start of the data; pad counts those; the next epoch
                // continues after them (MXNet 1.9.1's round_batch=1)
  kPad,         // leave the rest of the previous batch in place; pad counts those rows
  kDiscard,     // drop it (MNISTIter)
};

class TableBatchLoader : public BatchSource {
 public:
  TableBatchLoader(ExampleTable table, size_t batch_size, LastBatch mode);
  void BeforeFirst() override;
  bool Next(HostBatch* out) override;
  TShape DataShape() const override;
  TShape LabelShape() const override;

 private:
  void CopyRow(size_t row, size_t slot);

  ExampleTable table_;
  size_t batch_size_;
  LastBatch mode_;
  size_t cursor_ = 0;
  size_t num_overflow_ = 0;
  HostBatch buffer_;  // reused so that kPad keeps the previous batch's rows
};

/*! \brief Shape (batch, ...example) of a batch; a label shape of (1,) gives (batch,). */
TShape BatchShape(size_t batch_size, const TShape& example, bool squeeze_unit);

/*! \brief The files a path names: itself, or the regular files of a directory (sorted). */
std::vector<std::string> ListDataFiles(const std::string& path, const char* iter_name,
                                       const char* arg);

/*! \brief A whole file's bytes; gzip-compressed files are decompressed. */
std::string ReadWholeFile(const std::string& path, const char* iter_name);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_EXAMPLE_TABLE_H_
