// RecordFile, the part and epoch order of records, and ParseImageRecord (see recordio_index.h).
#include "io/recordio_index.h"

#include <dmlc/logging.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace mxnet {
namespace io {
namespace {

constexpr uint32_t kMagic = 0xced7230a;
inline uint32_t PartLength(uint32_t lrec) { return lrec & ((1U << 29U) - 1U); }
inline uint32_t PartFlag(uint32_t lrec) { return lrec >> 29U; }
inline uint64_t Aligned(uint64_t n) { return (n + 3U) & ~uint64_t(3U); }

}  // namespace

RecordFile::RecordFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  CHECK(fd_ >= 0) << "cannot open record file '" << path << "': " << std::strerror(errno);
  struct stat st;
  CHECK(::fstat(fd_, &st) == 0) << "cannot stat record file '" << path << "'";
  size_ = static_cast<uint64_t>(st.st_size);
}

RecordFile::~RecordFile() {
  if (fd_ >= 0) ::close(fd_);
}

void RecordFile::ReadExact(uint64_t offset, void* buf, size_t n, const char* what) const {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd_, static_cast<char*>(buf) + done, n - done, offset + done);
    if (r < 0 && errno == EINTR) continue;
    CHECK(r > 0) << "record file '" << path_ << "': truncated " << what << " at byte "
                 << offset << " (file has " << size_ << " bytes)";
    done += static_cast<size_t>(r);
  }
}

std::vector<uint64_t> RecordFile::Offsets(const std::string& idx_path) const {
  std::vector<uint64_t> offsets;
  if (!idx_path.empty()) {
    std::ifstream idx(idx_path);
    CHECK(idx.is_open()) << "cannot open index file '" << idx_path << "'";
    std::string line;
    for (size_t lineno = 1; std::getline(idx, line); ++lineno) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      std::istringstream fields(line);
      std::string key;
      uint64_t pos = 0;
      CHECK(fields >> key >> pos) << "index file '" << idx_path << "' line " << lineno
                                  << ": expected 'key<TAB>offset', given '" << line << "'";
      CHECK(pos < size_ && pos % 4 == 0)
          << "index file '" << idx_path << "' line " << lineno << ": offset " << pos
          << " is not a record start of '" << path_ << "' (" << size_ << " bytes)";
      offsets.push_back(pos);
    }
    std::sort(offsets.begin(), offsets.end());
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    return offsets;
  }
  uint64_t pos = 0;
  bool in_record = false;
  while (pos + 8 <= size_) {
    uint32_t head[2];
    ReadExact(pos, head, sizeof(head), "record header");
    CHECK_EQ(head[0], kMagic) << "record file '" << path_ << "': bad magic at byte " << pos
                              << " (not a RecordIO file, or corrupt)";
    const uint32_t flag = PartFlag(head[1]);
    CHECK(flag <= 3) << "record file '" << path_ << "': bad continuation flag " << flag
                     << " at byte " << pos;
    if (flag == 0 || flag == 1) {
      CHECK(!in_record) << "record file '" << path_ << "': record at byte " << pos
                        << " starts inside an unfinished multi-part record";
      offsets.push_back(pos);
    }
    in_record = flag == 1 || flag == 2;
    pos += 8 + Aligned(PartLength(head[1]));
  }
  CHECK(pos == size_ && !in_record) << "record file '" << path_ << "': truncated last record "
                                    << "(file has " << size_ << " bytes)";
  return offsets;
}

void RecordFile::Read(uint64_t offset, std::string* out) const {
  out->clear();
  uint64_t pos = offset;
  for (int part = 0;; ++part) {
    uint32_t head[2];
    ReadExact(pos, head, sizeof(head), "record header");
    CHECK_EQ(head[0], kMagic) << "record file '" << path_ << "': bad magic at byte " << pos;
    const uint32_t flag = PartFlag(head[1]), len = PartLength(head[1]);
    CHECK(part == 0 ? (flag == 0 || flag == 1) : (flag == 2 || flag == 3))
        << "record file '" << path_ << "': unexpected continuation flag " << flag
        << " at byte " << pos;
    CHECK(pos + 8 + len <= size_) << "record file '" << path_ << "': record at byte " << pos
                                  << " claims " << len << " bytes, past the end of the file";
    if (part > 0) out->append(reinterpret_cast<const char*>(&kMagic), 4);
    const size_t at = out->size();
    out->resize(at + len);
    if (len > 0) ReadExact(pos + 8, &(*out)[at], len, "record");
    pos += 8 + Aligned(len);
    if (flag == 0 || flag == 3) return;
  }
}

std::vector<uint64_t> PartOfRecords(const std::vector<uint64_t>& offsets, uint64_t file_size,
                                    bool indexed, size_t part, size_t parts) {
  if (indexed) {
    const size_t step = (offsets.size() + parts - 1) / parts;
    const size_t begin = std::min(offsets.size(), part * step);
    const size_t end = std::min(offsets.size(), (part + 1) * step);
    return std::vector<uint64_t>(offsets.begin() + begin, offsets.begin() + end);
  }
  const uint64_t step = ((file_size + parts - 1) / parts + 3) / 4 * 4;
  const auto begin = std::lower_bound(offsets.begin(), offsets.end(), step * part);
  const auto end = std::lower_bound(offsets.begin(), offsets.end(), step * (part + 1));
  return std::vector<uint64_t>(begin, end);
}

std::vector<size_t> EpochOrder(size_t n, bool shuffle, int seed, uint64_t epoch,
                               size_t shuffle_chunk_size, int shuffle_chunk_seed) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  if (shuffle) {
    uint32_t s = static_cast<uint32_t>(seed) * 2654435761U + static_cast<uint32_t>(epoch);
    if (shuffle_chunk_size > 0) {
      s ^= static_cast<uint32_t>(shuffle_chunk_seed) * 40503U + 0x9e3779b9U;
    }
    std::mt19937 rng(s);
    std::shuffle(order.begin(), order.end(), rng);
  }
  return order;
}

ImageRecordHeader ParseImageRecord(const std::string& rec, const char** image, size_t* size,
                                   const std::string& what) {
  ImageRecordHeader h;
  CHECK(rec.size() >= 24) << what << ": record of " << rec.size()
                          << " bytes is shorter than the 24-byte image header";
  std::memcpy(&h.flag, rec.data(), 4);
  std::memcpy(&h.label, rec.data() + 4, 4);
  std::memcpy(&h.id, rec.data() + 8, 8);
  std::memcpy(&h.id2, rec.data() + 16, 8);
  size_t header = 24;
  if (h.flag > 0) {
    CHECK(rec.size() >= 24 + size_t(h.flag) * 4)
        << what << ": header promises " << h.flag << " labels, the record has "
        << rec.size() - 24 << " bytes after the header";
    h.labels = reinterpret_cast<const float*>(rec.data() + 24);
    header += size_t(h.flag) * 4;
  }
  *image = rec.data() + header;
  *size = rec.size() - header;
  return h;
}

}  // namespace io
}  // namespace mxnet
