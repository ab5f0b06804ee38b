// ExampleTable, TableBatchLoader and file helpers (see example_table.h).
#include "io/example_table.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>
#include <utility>

namespace mxnet {
namespace io {

void ExampleTable::KeepPart(int num_parts, int part_index, const char* iter_name) {
  CHECK_GE(num_parts, 1) << iter_name << ": num_parts must be >= 1, given " << num_parts;
  CHECK(part_index >= 0 && part_index < num_parts)
      << iter_name << ": part_index must be in [0, num_parts=" << num_parts << "), given "
      << part_index;
  KeepRows(num_examples * part_index / num_parts, num_examples * (part_index + 1) / num_parts);
}

void ExampleTable::KeepRows(size_t begin, size_t end) {
  data.assign(data.begin() + begin * DataSize(), data.begin() + end * DataSize());
  label.assign(label.begin() + begin * LabelSize(), label.begin() + end * LabelSize());
  ids.assign(ids.begin() + begin, ids.begin() + end);
  num_examples = end - begin;
}

void ExampleTable::Shuffle(unsigned seed) {
  std::vector<size_t> perm(num_examples);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(seed));
  ExampleTable out = *this;
  for (size_t i = 0; i < num_examples; ++i) {
    std::copy_n(data.begin() + perm[i] * DataSize(), DataSize(), out.data.begin() + i * DataSize());
    std::copy_n(label.begin() + perm[i] * LabelSize(), LabelSize(),
                out.label.begin() + i * LabelSize());
    out.ids[i] = ids[perm[i]];
  }
  *this = std::move(out);
}

TShape BatchShape(size_t batch_size, const TShape& example, bool squeeze_unit) {
  std::vector<dim_t> dims{static_cast<dim_t>(batch_size)};
  if (!(squeeze_unit && example.ndim() == 1 && example[0] == 1)) {
    for (int i = 0; i < example.ndim(); ++i) dims.push_back(example[i]);
  }
  return TShape(dims.begin(), dims.end());
}

TableBatchLoader::TableBatchLoader(ExampleTable table, size_t batch_size, LastBatch mode)
    : table_(std::move(table)), batch_size_(batch_size), mode_(mode) {
  buffer_.data.assign(batch_size_ * table_.DataSize(), 0.0);
  buffer_.label.assign(batch_size_ * table_.LabelSize(), 0.0);
  buffer_.index.assign(batch_size_, 0);
}

TShape TableBatchLoader::DataShape() const {
  return BatchShape(batch_size_, table_.data_shape, false);
}

TShape TableBatchLoader::LabelShape() const {
  return BatchShape(batch_size_, table_.label_shape, true);
}

void TableBatchLoader::BeforeFirst() {
  if (mode_ == LastBatch::kRoundRobin && num_overflow_ != 0) {
    num_overflow_ = 0;  // the wrapped examples were served: continue after them
  } else {
    cursor_ = 0;
  }
}

void TableBatchLoader::CopyRow(size_t row, size_t slot) {
  size_t ds = table_.DataSize(), ls = table_.LabelSize();
  std::copy_n(table_.data.begin() + row * ds, ds, buffer_.data.begin() + slot * ds);
  std::copy_n(table_.label.begin() + row * ls, ls, buffer_.label.begin() + slot * ls);
  buffer_.index[slot] = table_.ids[row];
}

bool TableBatchLoader::Next(HostBatch* out) {
  if (num_overflow_ != 0) return false;  // the epoch ended with a wrapped batch
  size_t top = 0;
  while (top < batch_size_ && cursor_ < table_.num_examples) CopyRow(cursor_++, top++);
  buffer_.pad = 0;
  if (top < batch_size_) {
    if (top == 0 || mode_ == LastBatch::kDiscard) return false;
    if (mode_ == LastBatch::kRoundRobin) {
      cursor_ = 0;
      for (; top < batch_size_; ++top, ++num_overflow_) {
        CHECK_LT(cursor_, table_.num_examples)
            << "data iterator: the number of examples (" << table_.num_examples
            << ") must be at least batch_size (" << batch_size_ << ") with round_batch=1";
        CopyRow(cursor_++, top);
      }
      buffer_.pad = static_cast<int>(num_overflow_);
    } else {
      buffer_.pad = static_cast<int>(batch_size_ - top);
    }
  }
  *out = buffer_;
  return true;
}

std::vector<std::string> ListDataFiles(const std::string& path, const char* iter_name,
                                       const char* arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  CHECK(!files.empty()) << iter_name << ": " << arg << "='" << path
                        << "' is a directory without files";
  return files;
}

std::string ReadWholeFile(const std::string& path, const char* iter_name) {
  gzFile f = gzopen(path.c_str(), "rb");  // reads uncompressed files as they are
  CHECK(f != nullptr) << iter_name << ": cannot open file '" << path << "'";
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, n);
  int errnum = 0;
  std::string msg = n < 0 ? gzerror(f, &errnum) : "";
  gzclose(f);
  CHECK_GE(n, 0) << iter_name << ": error reading file '" << path << "': " << msg;
  return out;
}

}  // namespace io
}  // namespace mxnet
