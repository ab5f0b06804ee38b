// RecordFile: random access to the records of a RecordIO file (dmlc's format, see
// docs/recordio.md) from many threads at once (pread), with the record offsets taken from its
// .idx file or found by walking the record headers; the records of a part and the order of an
// epoch; and the image-record header (IRHeader).
#ifndef MXNET_IO_RECORDIO_INDEX_H_
#define MXNET_IO_RECORDIO_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mxnet {
namespace io {

class RecordFile {
 public:
  /*! \brief Opens path (fails naming it when missing). */
  explicit RecordFile(const std::string& path);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  /*! \brief The start offsets of all records, in file order: from idx_path when given
   *  (its second column, sorted), else by walking the headers. Bad headers fail naming the
   *  file and the byte. */
  std::vector<uint64_t> Offsets(const std::string& idx_path) const;
  /*! \brief The payload of the record starting at offset (continuation parts joined).
   *  Thread-safe. A truncated or corrupt record fails naming the file and the byte. */
  void Read(uint64_t offset, std::string* out) const;
  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  void ReadExact(uint64_t offset, void* buf, size_t n, const char* what) const;
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

/*! \brief The records of part `part` of `parts`, cut as MXNet 1.9.1's InputSplit cuts the
 *  file: with an index (`indexed`), ceil(N / parts) records per part in file order; without,
 *  the records that start in bytes [part * s, (part + 1) * s) with s = ceil(file_size / parts)
 *  rounded up to 4. Either way each record is in exactly one part; a part may be empty. */
std::vector<uint64_t> PartOfRecords(const std::vector<uint64_t>& offsets, uint64_t file_size,
                                    bool indexed, size_t part, size_t parts);

/*! \brief An epoch's order of n records: 0..n-1, or with `shuffle` a permutation seeded by
 *  (seed, epoch). The shuffle is global (MXNet shuffles chunks of the file, then records in a
 *  chunk), so a shuffle_chunk_size > 0 only brings shuffle_chunk_seed into the seed. */
std::vector<size_t> EpochOrder(size_t n, bool shuffle, int seed, uint64_t epoch,
                               size_t shuffle_chunk_size, int shuffle_chunk_seed);

/*! \brief The 24-byte image-record header ('<IfQQ') and its label vector (flag > 0). */
struct ImageRecordHeader {
  uint32_t flag = 0;
  float label = 0;
  uint64_t id = 0, id2 = 0;
  const float* labels = nullptr;  // flag values after the header, when flag > 0
};

/*! \brief Splits a record into header and encoded image; fails naming `what` when short. */
ImageRecordHeader ParseImageRecord(const std::string& rec, const char** image, size_t* size,
                                   const std::string& what);

}  // namespace io
}  // namespace mxnet

#endif  // MXNET_IO_RECORDIO_INDEX_H_
