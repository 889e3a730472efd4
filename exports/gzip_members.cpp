#include "exports/gzip_members.hpp"

namespace computeprof::exports {
namespace {

// zlib's window bits plus 16: a gzip header and trailer around the deflate stream.
constexpr int kGzipWindowBits = 15 + 16;
// Level 1: half of level 6's time (zlib's default) for a trace a third larger, about
// 48 bytes a launch rather than 35 (docs/format.md, "JSON trace"); the writer's time
// is the scarcer.
constexpr int kLevel = 1;
constexpr int kMemoryLevel = 8;

}  // namespace

GzipMembers::~GzipMembers() {
  if (started_) zlib_->deflate_end(&stream_);
}

bool GzipMembers::start(std::string& error) {
  zlib_ = zlib_library(error);
  if (!zlib_) return false;
  if (zlib_->deflate_init2(&stream_, kLevel, Z_DEFLATED, kGzipWindowBits, kMemoryLevel, Z_DEFAULT_STRATEGY,
                           zlib_->version(), static_cast<int>(sizeof(z_stream))) != Z_OK) {
    error = "zlib cannot make a compressor";
    return false;
  }
  started_ = true;
  return true;
}

bool GzipMembers::append_member(std::string_view text, std::string& out) {
  if (!started_) return false;
  const std::size_t before = out.size();
  stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream_.avail_in = static_cast<uInt>(text.size());
  int status = Z_OK;
  while (status == Z_OK) {
    // Room for the whole member at once usually: deflate's bound for the text.
    const std::size_t room = text.size() / 2 + 4096;
    const std::size_t at = out.size();
    out.resize(at + room);
    stream_.next_out = reinterpret_cast<Bytef*>(out.data() + at);
    stream_.avail_out = static_cast<uInt>(room);
    status = zlib_->deflate(&stream_, Z_FINISH);
    out.resize(at + (room - stream_.avail_out));
  }
  zlib_->deflate_reset(&stream_);
  if (status != Z_STREAM_END) {
    out.resize(before);
    return false;
  }
  return true;
}

}  // namespace computeprof::exports
