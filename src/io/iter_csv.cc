// CSVIter: rows of comma-separated values, one example per row, reshaped to data_shape.
#include <cstdlib>
#include <memory>
#include <string>

#include "io/example_table.h"
#include "io/prefetch_iter.h"
#include "operator/tuple_args.h"

namespace mxnet {
namespace io {
namespace {

struct CSVParam : public dmlc::Parameter<CSVParam> {
  std::string data_csv, label_csv;
  op::ShapeArg data_shape, label_shape;
  int batch_size;
  bool round_batch;
  DMLC_DECLARE_PARAMETER(CSVParam) {
    DMLC_DECLARE_FIELD(data_csv).describe("The input CSV file or a directory path.");
    DMLC_DECLARE_FIELD(data_shape).describe("The shape of one example.");
    DMLC_DECLARE_FIELD(label_csv).set_default("NULL").describe(
        "The input CSV file or a directory path. If NULL, all labels will be returned as 0.");
    DMLC_DECLARE_FIELD(label_shape).set_default(op::ShapeArg(TShape{1}))
        .describe("The shape of one label.");
    DMLC_DECLARE_FIELD(batch_size).set_lower_bound(0).describe("Batch size.");
    DMLC_DECLARE_FIELD(round_batch).set_default(true).describe(
        "Whether to use round robin to handle overflow batch or not.");
  }
};
DMLC_REGISTER_PARAMETER(CSVParam);

/*! \brief Rows of values of every file a path names, each row checked to hold row_size. */
std::vector<double> ReadCSVRows(const std::string& path, size_t row_size, const char* arg,
                                size_t* num_rows) {
  std::vector<double> values;
  *num_rows = 0;
  for (const std::string& file : ListDataFiles(path, "CSVIter", arg)) {
    std::string text = ReadWholeFile(file, "CSVIter");
    size_t pos = 0, line_no = 0;
    while (pos < text.size()) {
      size_t eol = text.find('\n', pos);
      if (eol == std::string::npos) eol = text.size();
      std::string line = text.substr(pos, eol - pos);
      pos = eol + 1;
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      size_t count = 0;
      const char* p = line.c_str();
      while (true) {
        char* end = nullptr;
        double v = std::strtod(p, &end);
        CHECK(end != p) << "CSVIter: " << file << " line " << line_no
                        << ": cannot parse a number at '" << p << "'";
        values.push_back(v);
        ++count;
        while (*end == ' ' || *end == '\t' || *end == '\r') ++end;
        if (*end == '\0') break;
        CHECK_EQ(*end, ',') << "CSVIter: " << file << " line " << line_no
                            << ": expected ',' at '" << end << "'";
        p = end + 1;
      }
      CHECK_EQ(count, row_size) << "CSVIter: " << file << " line " << line_no << " has "
                                << count << " values; the shape " << arg
                                << " asks for " << row_size;
      ++*num_rows;
    }
  }
  return values;
}

DataIter* CreateCSVIter(const IterKwargs& kwargs) {
  CSVParam param;
  PrefetchParam prefetch;
  ParseIterArgs(kwargs, &param, &prefetch);
  CHECK_GT(param.batch_size, 0) << "CSVIter: batch_size must be > 0, given " << param.batch_size;
  int dtype = prefetch.dtype.has_value() ? prefetch.dtype.value() : kFloat32;
  CHECK(dtype == kFloat32 || dtype == kInt32 || dtype == kInt64)
      << "CSVIter: dtype must be float32, int32 or int64, given " << DTypeArgName(dtype);
  ExampleTable table;
  table.data_shape = param.data_shape;
  table.label_shape = param.label_shape;
  CHECK_GT(table.data_shape.ndim(), 0) << "CSVIter: data_shape must not be empty";
  CHECK_GT(table.label_shape.ndim(), 0) << "CSVIter: label_shape must not be empty";
  table.data = ReadCSVRows(param.data_csv, table.DataSize(), "data_shape", &table.num_examples);
  if (param.label_csv == "NULL") {
    table.label.assign(table.num_examples * table.LabelSize(), 0.0);
  } else {
    size_t label_rows = 0;
    table.label = ReadCSVRows(param.label_csv, table.LabelSize(), "label_shape", &label_rows);
    CHECK_EQ(label_rows, table.num_examples)
        << "CSVIter: data_csv '" << param.data_csv << "' has " << table.num_examples
        << " rows but label_csv '" << param.label_csv << "' has " << label_rows;
  }
  table.ids.resize(table.num_examples);
  for (size_t i = 0; i < table.num_examples; ++i) table.ids[i] = i;
  auto loader = std::make_unique<TableBatchLoader>(
      std::move(table), param.batch_size,
      param.round_batch ? LastBatch::kRoundRobin : LastBatch::kPad);
  return new PrefetchingDataIter(std::move(loader), prefetch.prefetch_buffer, dtype);
}

}  // namespace

MXNET_REGISTER_IO_ITER(CSVIter)
    .describe(
        "Returns the CSV file iterator.\n\n"
        "Each row of ``data_csv`` is one example, reshaped to ``data_shape``; each row of "
        "``label_csv`` (when given) is its label, reshaped to ``label_shape``. A directory "
        "path reads all its files in name order.\n\n"
        "With ``round_batch=True`` (the default) the last batch of an epoch is completed "
        "with examples from the start of the data (``pad`` counts them) and the next epoch, "
        "after ``reset()``, continues after those examples. With ``round_batch=False`` the "
        "last batch keeps rows of the previous batch in its padded slots.\n\n"
        "``dtype`` may be float32 (default), int32 or int64.\n\n"
        "Example::\n\n"
        "  it = mx.io.CSVIter(data_csv='data.csv', data_shape=(3,), batch_size=2)\n")
    .add_arguments(CSVParam::__FIELDS__())
    .add_arguments(PrefetchParam::__FIELDS__())
    .set_body(CreateCSVIter);

}  // namespace io
}  // namespace mxnet
