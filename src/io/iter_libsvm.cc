// LibSVMIter: zero-based LibSVM text ("label idx:value ..."), returned as csr batches.
#include <cstdlib>
#include <memory>
#include <string>

#include "io/example_table.h"
#include "io/prefetch_iter.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace io {
namespace {

struct LibSVMParam : public dmlc::Parameter<LibSVMParam> {
  std::string data_libsvm, label_libsvm;
  op::ShapeArg data_shape, label_shape;
  int num_parts, part_index, batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(LibSVMParam) {
    DMLC_DECLARE_FIELD(data_libsvm).describe(
        "The input zero-base indexed LibSVM data file or a directory path.");
    DMLC_DECLARE_FIELD(data_shape).describe("The shape of one example.");
    DMLC_DECLARE_FIELD(label_libsvm).set_default("NULL").describe(
        "The input LibSVM label file or a directory path. If NULL, all labels will be read "
        "from ``data_libsvm``.");
    DMLC_DECLARE_FIELD(label_shape).set_default(op::ShapeArg(TShape{1}))
        .describe("The shape of one label.");
    DMLC_DECLARE_FIELD(num_parts).set_default(1).describe("partition the data into multiple parts");
    DMLC_DECLARE_FIELD(part_index).set_default(0).describe("the index of the part will read");
    DMLC_DECLARE_FIELD(batch_size).set_lower_bound(0).describe("Batch size.");
    DMLC_DECLARE_FIELD(round_batch).set_default(true).describe(
        "Whether to use round robin to handle overflow batch or not.");
  }
};
DMLC_REGISTER_PARAMETER(LibSVMParam);

/*! \brief Dense rows of width `width` from LibSVM text; labels (the leading value of each
 *  line) go to *labels when not null. */
std::vector<double> ReadLibSVMRows(const std::string& path, size_t width, const char* arg,
                                   std::vector<double>* labels, size_t* num_rows,
                                   std::vector<size_t>* line_starts, size_t* total_bytes) {
  std::vector<double> values;
  *num_rows = 0;
  *total_bytes = 0;
  for (const std::string& file : ListDataFiles(path, "LibSVMIter", arg)) {
    std::string text = ReadWholeFile(file, "LibSVMIter");
    size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string line = text.substr(pos, eol - pos);
      pos = eol + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      line_starts->push_back(*total_bytes + (pos - line.size() - 1));
      const char* p = line.c_str();
      char* end = nullptr;
      double label = std::strtod(p, &end);
      CHECK(end != p) << "LibSVMIter: " << file << " line " << line_no
                      << ": expected a label at the start of '" << line << "'";
      if (labels != nullptr) labels->push_back(label);
      size_t row = values.size();
      values.resize(row + width, 0.0);
      p = end;
      while (true) {
        while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
        if (*p == '\0') break;
        long long idx = std::strtoll(p, &end, 10);  // NOLINT(runtime/int)
        CHECK(end != p && *end == ':') << "LibSVMIter: " << file << " line " << line_no
                                       << ": expected 'index:value' at '" << p << "'";
        CHECK(idx >= 0 && static_cast<size_t>(idx) < width)
            << "LibSVMIter: " << file << " line " << line_no << ": feature index " << idx
            << " is outside [0, " << width << ") given by " << arg;
        p = end + 1;
        double v = std::strtod(p, &end);
        CHECK(end != p) << "LibSVMIter: " << file << " line " << line_no
                        << ": expected a value after '" << idx << ":'";
        values[row + idx] = v;
        p = end;
      }
      ++*num_rows;
    }
    *total_bytes += text.size();
  }
  return values;
}

/*! \brief Keep the rows of part part_index when the text is cut into num_parts equal byte
 *  ranges, a line belonging to the range its first byte follows (MXNet 1.9.1's split of
 *  text input, so parts hold the same rows as there; they are not of equal row counts). */
void KeepByteRangePart(ExampleTable* table, const std::vector<size_t>& line_starts,
                       size_t total_bytes, int num_parts, int part_index) {
  CHECK_GE(num_parts, 1) << "LibSVMIter: num_parts must be >= 1, given " << num_parts;
  CHECK(part_index >= 0 && part_index < num_parts)
      << "LibSVMIter: part_index must be in [0, num_parts=" << num_parts << "), given "
      << part_index;
  size_t step = (total_bytes + num_parts - 1) / num_parts;
  auto part_of = [&](size_t start) { return start == 0 ? 0 : (start - 1) / step; };
  size_t begin = 0, end = 0;
  while (begin < line_starts.size() && part_of(line_starts[begin]) < size_t(part_index)) ++begin;
  end = begin;
  while (end < line_starts.size() && part_of(line_starts[end]) == size_t(part_index)) ++end;
  table->KeepRows(begin, end);
}

/*! \brief MXNet 1.9.1's storage of LibSVM batches: the data is csr, and so is the label when
 *  it has more than one value per row (one value per row stays dense). The rows are read
 *  dense and each handed-out batch is converted. */
class CsrBatchIter : public DataIter {
 public:
  CsrBatchIter(std::unique_ptr<DataIter> dense, bool csr_label)
      : dense_(std::move(dense)), csr_label_(csr_label) {}

  void BeforeFirst() override { dense_->BeforeFirst(); }
  bool Next() override {
    if (!dense_->Next()) return false;
    data_ = CastStorage(dense_->Data(), kCSRStorage);
    label_ = csr_label_ ? CastStorage(dense_->Label(), kCSRStorage) : dense_->Label();
    return true;
  }
  const NDArray& Data() const override { return data_; }
  const NDArray& Label() const override { return label_; }
  const std::vector<uint64_t>& Index() const override { return dense_->Index(); }
  int Pad() const override { return dense_->Pad(); }

 private:
  std::unique_ptr<DataIter> dense_;
  bool csr_label_;
  NDArray data_, label_;
};

DataIter* CreateLibSVMIter(const IterKwargs& kwargs) {
  LibSVMParam param;
  PrefetchParam prefetch;
  ParseIterArgs(kwargs, &param, &prefetch);
  CHECK_GT(param.batch_size, 0) << "LibSVMIter: batch_size must be > 0, given "
                                << param.batch_size;
  CHECK_EQ(param.data_shape.ndim(), 1) << "LibSVMIter: data_shape must have one dimension, "
                                       << "given " << param.data_shape;
  CHECK_EQ(param.label_shape.ndim(), 1) << "LibSVMIter: label_shape must have one dimension, "
                                        << "given " << param.label_shape;
  ExampleTable table;
  table.data_shape = param.data_shape;
  table.label_shape = param.label_shape;
  bool labels_in_data = param.label_libsvm == "NULL";
  if (labels_in_data) {
    CHECK_EQ(table.LabelSize(), 1) << "LibSVMIter: without label_libsvm the label is one "
                                   << "value per line; label_shape must be (1,), given "
                                   << param.label_shape;
  }
  std::vector<size_t> line_starts, label_line_starts;
  size_t total_bytes = 0, label_bytes = 0;
  table.data = ReadLibSVMRows(param.data_libsvm, table.DataSize(), "data_shape",
                              labels_in_data ? &table.label : nullptr, &table.num_examples,
                              &line_starts, &total_bytes);
  if (!labels_in_data) {
    size_t label_rows = 0;
    table.label = ReadLibSVMRows(param.label_libsvm, table.LabelSize(), "label_shape",
                                 nullptr, &label_rows, &label_line_starts, &label_bytes);
    CHECK_EQ(label_rows, table.num_examples)
        << "LibSVMIter: data_libsvm '" << param.data_libsvm << "' has " << table.num_examples
        << " rows but label_libsvm '" << param.label_libsvm << "' has " << label_rows;
  }
  table.ids.resize(table.num_examples);
  for (size_t i = 0; i < table.num_examples; ++i) table.ids[i] = i;
  KeepByteRangePart(&table, line_starts, total_bytes, param.num_parts, param.part_index);
  auto loader = std::make_unique<TableBatchLoader>(
      std::move(table), param.batch_size,
      param.round_batch ? LastBatch::kRoundRobin : LastBatch::kPad);
  auto dense = std::make_unique<PrefetchingDataIter>(
      std::move(loader), prefetch.prefetch_buffer,
      prefetch.dtype.has_value() ? prefetch.dtype.value() : kFloat32);
  return new CsrBatchIter(std::move(dense), param.label_shape.Size() > 1);
}

}  // namespace

MXNET_REGISTER_IO_ITER(LibSVMIter)
    .describe(
        "Returns the LibSVM iterator.\n\n"
        "The data of each batch is a ``csr`` array of shape (batch_size, data_shape[0]); "
        "the label is ``csr`` too when label_shape has more than one value, else dense.\n\n"
        "Lines are ``label index:value index:value ...`` with zero-based, ascending "
        "indices. Without ``label_libsvm`` the leading value of each line is the label; "
        "with it, the label rows are the features of the label file (its leading values "
        "are ignored). A directory path reads all its files in name order. ``num_parts`` and "
        "``part_index`` read one of ``num_parts`` contiguous parts of the rows. The last "
        "batch is completed as with CSVIter's ``round_batch``.\n\n"
        "Example::\n\n"
        "  it = mx.io.LibSVMIter(data_libsvm='data.t', data_shape=(3,), batch_size=3)\n")
    .add_arguments(LibSVMParam::__FIELDS__())
    .add_arguments(PrefetchParam::__FIELDS__())
    .set_body(CreateLibSVMIter);

}  // namespace io
}  // namespace mxnet
