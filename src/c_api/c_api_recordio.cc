// C API, RecordIO files: sequential writers and seekable readers over dmlc-core's RecordIO.
#include <dmlc/io.h>
#include <dmlc/recordio.h>

#include <memory>
#include <string>

#include "c_api/c_api_common.h"

using namespace mxnet;  // NOLINT(build/namespaces)

namespace {

/*! \brief One open .rec file: the stream and dmlc's writer or reader over it. The reader is
 *  rebuilt on each seek, so a seek after the end of the file reads again (dmlc's reader keeps
 *  an end-of-stream flag that a seek does not clear). */
struct RecordIOFile {
  std::string uri;
  bool writable = false;
  std::unique_ptr<dmlc::Stream> stream;
  dmlc::SeekStream* seek_stream = nullptr;  // the same stream, when it can seek
  std::unique_ptr<dmlc::RecordIOWriter> writer;
  std::unique_ptr<dmlc::RecordIOReader> reader;
  std::string record;  // the last record read, handed out until the next read
};

RecordIOFile* FileFromHandle(RecordIOHandle handle, bool writer, const char* fn) {
  API_CHECK(handle != nullptr, fn << ": argument handle is NULL (expected a RecordIO "
                                  << (writer ? "writer" : "reader") << ")");
  auto* file = static_cast<RecordIOFile*>(handle);
  API_CHECK(file->writable == writer, fn << ": handle of '" << file->uri << "' is a RecordIO "
                                         << (file->writable ? "writer" : "reader")
                                         << ", expected a " << (writer ? "writer" : "reader"));
  return file;
}

std::unique_ptr<dmlc::Stream> OpenStream(const char* uri, const char* mode, const char* fn) {
  API_CHECK(uri != nullptr, fn << ": argument uri is NULL (expected a file path)");
  dmlc::Stream* s = nullptr;
  try {
    s = dmlc::Stream::Create(uri, mode, true);
  } catch (const dmlc::Error& e) {
    API_CHECK(false, fn << ": cannot open '" << uri << "' for "
                        << (mode[0] == 'w' ? "writing" : "reading") << ": " << e.what());
  }
  API_CHECK(s != nullptr, fn << ": cannot open '" << uri << "' for "
                             << (mode[0] == 'w' ? "writing" : "reading")
                             << " (missing file or folder?)");
  return std::unique_ptr<dmlc::Stream>(s);
}

}  // namespace

int MXRecordIOWriterCreate(const char* uri, RecordIOHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  auto file = std::make_unique<RecordIOFile>();
  file->stream = OpenStream(uri, "w", "MXRecordIOWriterCreate");
  file->uri = uri;
  file->writable = true;
  file->seek_stream = dynamic_cast<dmlc::SeekStream*>(file->stream.get());
  file->writer = std::make_unique<dmlc::RecordIOWriter>(file->stream.get());
  *out = file.release();
  API_END();
}

int MXRecordIOWriterFree(RecordIOHandle handle) {
  API_BEGIN();
  if (handle != nullptr) {
    std::unique_ptr<RecordIOFile> file(FileFromHandle(handle, true, "MXRecordIOWriterFree"));
  }
  API_END();
}

int MXRecordIOWriterWriteRecord(RecordIOHandle handle, const char* buf, size_t size) {
  API_BEGIN();
  RecordIOFile* file = FileFromHandle(handle, true, "MXRecordIOWriterWriteRecord");
  API_CHECK(buf != nullptr || size == 0, "MXRecordIOWriterWriteRecord: argument buf is NULL");
  API_CHECK(size < (size_t(1) << 29U),
            "MXRecordIOWriterWriteRecord: record of " << size << " bytes for '" << file->uri
                                                      << "' is too large (at most 2^29-1)");
  file->writer->WriteRecord(buf, size);
  API_END();
}

int MXRecordIOWriterTell(RecordIOHandle handle, size_t* pos) {
  API_BEGIN();
  RecordIOFile* file = FileFromHandle(handle, true, "MXRecordIOWriterTell");
  API_NOT_NULL(pos);
  API_CHECK(file->seek_stream != nullptr,
            "MXRecordIOWriterTell: the stream of '" << file->uri << "' has no position");
  *pos = file->writer->Tell();
  API_END();
}

int MXRecordIOReaderCreate(const char* uri, RecordIOHandle* out) {
  API_BEGIN();
  API_NOT_NULL(out);
  auto file = std::make_unique<RecordIOFile>();
  file->stream = OpenStream(uri, "r", "MXRecordIOReaderCreate");
  file->uri = uri;
  file->seek_stream = dynamic_cast<dmlc::SeekStream*>(file->stream.get());
  file->reader = std::make_unique<dmlc::RecordIOReader>(file->stream.get());
  *out = file.release();
  API_END();
}

int MXRecordIOReaderFree(RecordIOHandle handle) {
  API_BEGIN();
  if (handle != nullptr) {
    std::unique_ptr<RecordIOFile> file(FileFromHandle(handle, false, "MXRecordIOReaderFree"));
  }
  API_END();
}

int MXRecordIOReaderReadRecord(RecordIOHandle handle, char const** buf, size_t* size) {
  API_BEGIN();
  RecordIOFile* file = FileFromHandle(handle, false, "MXRecordIOReaderReadRecord");
  API_NOT_NULL(buf);
  API_NOT_NULL(size);
  size_t at = file->seek_stream != nullptr ? file->seek_stream->Tell() : 0;
  bool got = false;
  try {
    got = file->reader->NextRecord(&file->record);
  } catch (const dmlc::Error& e) {
    API_CHECK(false, "MXRecordIOReaderReadRecord: corrupt or truncated record at byte "
                         << at << " of '" << file->uri << "': " << e.what());
  }
  *buf = got ? file->record.data() : nullptr;
  *size = got ? file->record.size() : 0;
  API_END();
}

int MXRecordIOReaderSeek(RecordIOHandle handle, size_t pos) {
  API_BEGIN();
  RecordIOFile* file = FileFromHandle(handle, false, "MXRecordIOReaderSeek");
  API_CHECK(file->seek_stream != nullptr,
            "MXRecordIOReaderSeek: the stream of '" << file->uri << "' cannot seek");
  API_CHECK(pos % 4 == 0, "MXRecordIOReaderSeek: position " << pos << " in '" << file->uri
                                                           << "' is not a record start "
                                                              "(records are 4-byte aligned)");
  file->seek_stream->Seek(pos);
  file->reader = std::make_unique<dmlc::RecordIOReader>(file->stream.get());
  API_END();
}

int MXRecordIOReaderTell(RecordIOHandle handle, size_t* pos) {
  API_BEGIN();
  RecordIOFile* file = FileFromHandle(handle, false, "MXRecordIOReaderTell");
  API_NOT_NULL(pos);
  API_CHECK(file->seek_stream != nullptr,
            "MXRecordIOReaderTell: the stream of '" << file->uri << "' has no position");
  *pos = file->seek_stream->Tell();
  API_END();
}
