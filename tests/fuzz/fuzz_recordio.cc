// libFuzzer target: the RecordIO reader of the image record iterators (RecordFile: header
// walk and record reads) and the image decoder (ParseImageRecord + DecodeImage) on arbitrary
// bytes. Any input must end in a result or a dmlc::Error, never a crash, hang or leak.
#include <dmlc/logging.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/recordio_index.h"
#include "operator/image/image_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fd = memfd_create("fuzz.rec", 0);
  if (fd < 0) return 0;
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) {
    close(fd);
    return 0;
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    mxnet::io::RecordFile file(path);
    std::vector<uint64_t> offsets = file.Offsets("");
    std::string rec;
    for (uint64_t off : offsets) {
      file.Read(off, &rec);
      const char* img = nullptr;
      size_t img_size = 0;
      try {
        mxnet::io::ParseImageRecord(rec, &img, &img_size, "fuzz");
        if (img_size > 0 && img_size < (1U << 20)) {
          mxnet::op::image::DecodeImage(img, img_size, 1, true, "fuzz");
        }
      } catch (const dmlc::Error&) {
      }
    }
  } catch (const dmlc::Error&) {
  }
  close(fd);
  return 0;
}
